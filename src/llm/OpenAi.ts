import { Config, Duration, Effect, Layer } from "effect"
import OpenAI from "openai"
import { recordOf } from "../support/Fields.js"
import * as LanguageModel from "./LanguageModel.js"
import { type ModelError, ModelHttpError, ModelTimeoutError, ModelUnavailableError } from "./ModelErrors.js"
import { connectionOf, type ModelOverride } from "./ModelOverride.js"
import { keyed } from "./NativeProvider.js"
import { isEmpty, readAnswer } from "./OpenAiAnswers.js"
import { failureOf, REFUSES_FORMAT, Retryable, retrySchedule, withOpenAiErrorBodies } from "./OpenAiFailures.js"
import { DEFAULT_PRICES, loadPriceTable, type ModelPrice, priceOf, unpricedNotice } from "./Pricing.js"

export interface OpenAiOptions {
  readonly apiKey?: string | undefined
  readonly baseURL?: string | undefined
  readonly model: string
  readonly timeoutMs: number
  readonly maxRetries: number
  readonly retryBaseMs?: number
  /** Ask for the answer streamed as it is written (default true); endpoints that refuse it get plain calls. */
  readonly stream?: boolean | undefined
  /** How long a step down of the output format lasts before the strongest format is tried again (10 minutes). */
  readonly formatRetryMs?: number | undefined
}

/** How long a step down of the output format lasts unless AEON_LLM_FORMAT_RETRY_MS says otherwise. */
export const FORMAT_RETRY_MS = 10 * 60_000

/**
 * How the output format is asked for: the JSON Schema (structured outputs), else JSON mode, else the schema written
 * in the prompt — each step down taken once a server refuses the format or answers prose in spite of it.
 */
type OutputFormat = "json_schema" | "json_object" | "prompt"
const NEXT_FORMAT: Record<OutputFormat, OutputFormat | undefined> = {
  json_schema: "json_object",
  json_object: "prompt",
  prompt: undefined
}

const withSchemaInPrompt = (request: LanguageModel.CompletionRequest) =>
  `${request.system}\n\nAnswer with one JSON object and nothing else (no prose, no Markdown), valid against this ` +
  `JSON Schema:\n${JSON.stringify(request.jsonSchema)}`

/** What a service learns of its endpoint as it answers, kept for the rest of the process (per service). */
interface Learned {
  /** How the output format is asked for, stepped down when the endpoint refuses it or ignores it. */
  format: OutputFormat
  /** The last step down: when, from which format and why; the strongest format is tried again `formatRetryMs` after. */
  steppedDown?: { readonly at: number; readonly from: OutputFormat; readonly why: string } | undefined
  /** max_completion_tokens instead of max_tokens (OpenAI's reasoning models refuse max_tokens). */
  completionTokensParam: boolean
  /** Plain calls: the endpoint refuses streamed answers (or AEON_LLM_STREAM=0). */
  plainOnly: boolean
  /** The format a caller's schema (a run's output schema, for the run's life) stepped down to. */
  readonly schemaFormats: WeakMap<object, OutputFormat>
}

interface Endpoint {
  readonly client: OpenAI
  readonly options: OpenAiOptions
  readonly url: string
  readonly learned: Learned
}

type Attempt = Effect.Effect<LanguageModel.CompletionResponse, ModelError | Retryable>

const refused = (pattern: RegExp) => (e: unknown): e is ModelHttpError =>
  e instanceof ModelHttpError && e.status === 400 && pattern.test(e.message)

/** The user message: its text, then the task's images (`image_url`) and PDFs (`file`) in OpenAI's parts. */
const userContent = (request: LanguageModel.CompletionRequest) =>
  !request.attachments?.length ? request.user : [
    { type: "text" as const, text: request.user },
    ...request.attachments.map((a) =>
      a.mediaType.startsWith("image/")
        ? { type: "image_url" as const, image_url: { url: a.data ? `data:${a.mediaType};base64,${a.data}` : a.url! } }
        : {
          type: "file" as const,
          file: { filename: a.name ?? "attachment.pdf", file_data: `data:${a.mediaType};base64,${a.data ?? ""}` }
        }
    )
  ]

/** The request's body with the output format `asked` for. */
const bodyOf = (at: Endpoint, request: LanguageModel.CompletionRequest, asked: OutputFormat) => ({
  model: at.options.model,
  messages: [
    {
      role: "system" as const,
      // JSON mode has no schema: the caller's, which no prompt describes, goes in the prompt then
      content: asked === "prompt" || (asked === "json_object" && request.callerSchema === true)
        ? withSchemaInPrompt(request)
        : request.system
    },
    { role: "user" as const, content: userContent(request) }
  ],
  ...(at.learned.completionTokensParam
    ? { max_completion_tokens: request.maxOutputTokens }
    : { max_tokens: request.maxOutputTokens }),
  ...(asked === "json_schema"
    ? {
      response_format: {
        type: "json_schema" as const,
        json_schema: {
          name: request.promptId,
          schema: recordOf(request.jsonSchema) ?? {},
          strict: request.strict === true
        }
      }
    }
    : asked === "json_object"
    ? { response_format: { type: "json_object" as const } }
    : {})
})

/**
 * One request; the answer read by what came back (a JSON body or a stream), whatever was asked for. Its own abort
 * controller, aborted when the fiber is interrupted while waiting for the response or reading its body. An endpoint
 * that refuses streamed answers gets plain calls from then on.
 */
const once = (at: Endpoint, request: LanguageModel.CompletionRequest, asked: OutputFormat): Attempt =>
  Effect.suspend(() => {
    const controller = new AbortController()
    const streaming = !at.learned.plainOnly
    return Effect.zipRight(
      Effect.sync(() => request.onRequest?.()),
      Effect.tryPromise({
        try: (signal) => {
          signal.addEventListener("abort", () => controller.abort())
          const body = bodyOf(at, request, asked)
          return (streaming
            ? at.client.chat.completions.create(
              { ...body, stream: true, stream_options: { include_usage: true } },
              { signal: controller.signal }
            )
            : at.client.chat.completions.create(body, { signal: controller.signal })).asResponse()
        },
        catch: failureOf(at.url, at.options)
      })
    ).pipe(
      Effect.flatMap((response) => readAnswer(response, controller, request.onText, at.url)),
      Effect.catchIf((e) => streaming && refused(/stream/i)(e), () => {
        at.learned.plainOnly = true
        return once(at, request, asked)
      })
    )
  })

/** The output cap as max_completion_tokens once the endpoint refused max_tokens. */
const withCapParam = (at: Endpoint, request: LanguageModel.CompletionRequest, asked: OutputFormat): Attempt =>
  once(at, request, asked).pipe(
    Effect.catchIf((e) => !at.learned.completionTokensParam && refused(/max_tokens/)(e), () => {
      at.learned.completionTokensParam = true
      return once(at, request, asked)
    })
  )

const FORMAT_WORDS: Record<OutputFormat, string> = {
  json_schema: "structured output (json_schema)",
  json_object: "JSON mode (json_object)",
  prompt: "the schema written in the prompt"
}

/**
 * The format to ask for now: the one learned, or the strongest again once a step down is `formatRetryMs` old — a
 * model's bad stretch, or a server since upgraded, does not keep every later run on a weaker format; a server that
 * still refuses costs one refused request per period, one that still answers prose one call.
 */
const formatNow = (at: Endpoint): OutputFormat => {
  const down = at.learned.steppedDown
  if (down !== undefined && Date.now() - down.at >= (at.options.formatRetryMs ?? FORMAT_RETRY_MS)) {
    at.learned.format = "json_schema"
    at.learned.steppedDown = undefined
  }
  return at.learned.format
}

/** How the service asks for its output format now, in words, when it stepped down (for health); else undefined. */
const formatCondition = (at: Endpoint): string | undefined => {
  const down = at.learned.steppedDown
  if (down === undefined) return undefined
  const retryMs = at.options.formatRetryMs ?? FORMAT_RETRY_MS
  return `${at.options.model} at ${at.url}: output format stepped down to ${FORMAT_WORDS[at.learned.format]} at ${
    new Date(down.at).toISOString()
  } (${down.why}); ${FORMAT_WORDS.json_schema} is tried again from ${new Date(down.at + retryMs).toISOString()}`
}

/** What a run that stepped the format down is told (an advisory on the run). */
const stepDownNotice = (at: Endpoint, from: OutputFormat, to: OutputFormat, why: string) =>
  `${at.url} ${why}: the output format stepped down from ${FORMAT_WORDS[from]} to ${FORMAT_WORDS[to]} for this ` +
  `model (${at.options.model}); the stronger format is tried again after ${
    Math.round((at.options.formatRetryMs ?? FORMAT_RETRY_MS) / 1000)
  } s`

/** What a run whose output schema the endpoint would not take is told. */
const callerSchemaNotice = (at: Endpoint, from: OutputFormat, to: OutputFormat, why: string) =>
  `${at.url} ${why}: the run's output schema was asked for in ${FORMAT_WORDS[to]} instead of ${FORMAT_WORDS[from]}${
    to === "json_schema" ? "" : ", the schema in the prompt"
  }; the value is validated against it all the same`

/**
 * Steps the format down when the server refuses it (400) or answers prose to it (remembered for `formatRetryMs`,
 * and said on the call's response: the run raises it as an advisory); an empty answer is the server's failure,
 * retried once.
 */
const withFormat = (at: Endpoint, request: LanguageModel.CompletionRequest, forced?: OutputFormat): Attempt => {
  // a caller's schema (a run's output schema) refused is that schema's trouble, not the endpoint's: its calls step
  // down (remembered with the schema, so its repair does not ask again), the endpoint's other calls keep their format
  const own = request.callerSchema === true
  const asked = forced ?? (own ? at.learned.schemaFormats.get(request.jsonSchema) : undefined) ?? formatNow(at)
  const lower = NEXT_FORMAT[asked]
  const stepDown = (why: string) => () => {
    if (own && lower !== undefined) at.learned.schemaFormats.set(request.jsonSchema, lower)
    if (!own && lower !== undefined && at.learned.format === asked) {
      at.learned.format = lower
      at.learned.steppedDown = { at: Date.now(), from: asked, why }
    }
    const notice = lower === undefined
      ? undefined
      : own
      ? callerSchemaNotice(at, asked, lower, why)
      : stepDownNotice(at, asked, lower, why)
    return withFormat(at, request, own ? lower : undefined).pipe(
      Effect.map((r) => (notice === undefined ? r : { ...r, notice: r.notice ? `${notice}; ${r.notice}` : notice }))
    )
  }
  return withCapParam(at, request, asked).pipe(
    Effect.catchIf(
      (e): e is ModelHttpError => lower !== undefined && refused(REFUSES_FORMAT)(e),
      (e) => stepDown(`refused ${asked} (${e.message.slice(0, 160)})`)()
    ),
    Effect.flatMap((r) =>
      lower !== undefined && !r.truncated && LanguageModel.isProse(r.text)
        ? stepDown(`answered prose to ${asked}`)()
        : Effect.succeed(r)
    ),
    Effect.flatMap((r) =>
      isEmpty(r)
        ? Effect.fail(
          new Retryable(
            new ModelUnavailableError({ message: `${at.url} answered with no content and no output tokens` }),
            undefined,
            1
          )
        )
        : Effect.succeed(r)
    )
  )
}

/**
 * The call with its retries: every request sent counts against the run's call budget (no retry past what is left of
 * it), and a failure that rarely passes is retried at most as often as it says.
 */
const withRetries = (at: Endpoint, request: LanguageModel.CompletionRequest) =>
  Effect.suspend(() => {
    let sent = 0
    const retriedOf = new Map<string, number>()
    const counted = { ...request, onRequest: () => void (sent++, request.onRequest?.()) }
    const worthRetrying = (e: ModelError | Retryable) => {
      if (!(e instanceof Retryable) || sent >= (request.maxRequests?.() ?? Number.POSITIVE_INFINITY)) return false
      if (e.atMost === undefined) return true
      const retried = retriedOf.get(e.error.message) ?? 0
      retriedOf.set(e.error.message, retried + 1)
      return retried < e.atMost
    }
    return withFormat(at, counted).pipe(
      Effect.tapError((e) =>
        e instanceof Retryable ? Effect.logDebug(`model call failed (${e.error.message}); retrying`) : Effect.void
      ),
      Effect.retry({ schedule: retrySchedule(at.options), while: worthRetrying }),
      Effect.mapError((e): ModelError => (e instanceof Retryable ? e.error : e))
    )
  })

/** Images by URL or bytes (`image_url`), PDFs by their bytes (a `file` part). */
const openAiAccepts = (mediaType: string, byUrl: boolean) =>
  /^image\/(png|jpeg|gif|webp)$/.test(mediaType) || (mediaType === "application/pdf" && !byUrl)

const KEY_NAMES = "AEON_LLM_API_KEY or OPENAI_API_KEY"

/** The service for `options`; without a price, the built-in table's (and its notice when the model is not in it). */
export const make = (options: OpenAiOptions, priced?: ModelPrice, pricedNotice?: string): LanguageModel.Service => {
  const price = priced ?? priceOf(DEFAULT_PRICES, options.model)
  const notice = priced === undefined ? unpricedNotice(DEFAULT_PRICES, options.model) : pricedNotice
  const at: Endpoint = {
    client: new OpenAI({
      apiKey: options.apiKey ?? "not-needed",
      baseURL: options.baseURL,
      maxRetries: 0,
      timeout: options.timeoutMs + 1_000,
      fetch: withOpenAiErrorBodies(globalThis.fetch)
    }),
    options,
    url: options.baseURL ?? "https://api.openai.com/v1",
    learned: {
      format: "json_schema",
      completionTokensParam: false,
      plainOnly: options.stream === false,
      schemaFormats: new WeakMap()
    }
  }
  const service = LanguageModel.make(
    `openai:${options.model}`,
    price,
    keyed("openai", KEY_NAMES, options, (request) =>
      withRetries(at, request).pipe(
        // The timeout covers one call including its retries; interrupting aborts the HTTP request through the signal.
        Effect.timeoutFail({
          duration: Duration.millis(options.timeoutMs),
          onTimeout: () => new ModelTimeoutError({ promptId: request.promptId, timeoutMs: options.timeoutMs })
        })
      )),
    notice
  )
  return {
    ...service,
    unpriced: notice === undefined ? [] : [options.model],
    condition: () => formatCondition(at),
    accepts: openAiAccepts
  }
}

export const config = Config.all({
  // the AEON_ names first, then the names every OpenAI-compatible tool reads
  apiKey: Config.option(
    Config.redacted("AEON_LLM_API_KEY").pipe(
      Config.orElse(() => Config.redacted("OPENAI_API_KEY")),
      Config.withDescription("API key of the OpenAI-compatible endpoint (or OPENAI_API_KEY)")
    )
  ),
  baseURL: Config.option(
    Config.string("AEON_LLM_BASE_URL").pipe(
      Config.orElse(() => Config.string("OPENAI_BASE_URL")),
      Config.withDescription("Base URL of an OpenAI-compatible endpoint, …/v1 (or OPENAI_BASE_URL)")
    )
  ),
  model: Config.string("AEON_MODEL").pipe(
    Config.withDescription("Model name sent to the provider"),
    Config.withDefault("gpt-4o-mini")
  ),
  timeoutMs: Config.integer("AEON_LLM_TIMEOUT_MS").pipe(
    Config.withDescription("Per-call timeout in milliseconds"),
    Config.withDefault(60_000)
  ),
  maxRetries: Config.integer("AEON_LLM_MAX_RETRIES").pipe(
    Config.withDescription("Retries on 429, 5xx and dropped connections"),
    Config.withDefault(3)
  ),
  stream: Config.boolean("AEON_LLM_STREAM").pipe(
    Config.withDescription("Ask for answers streamed as they are written (0: plain calls)"),
    Config.withDefault(true)
  ),
  formatRetryMs: Config.integer("AEON_LLM_FORMAT_RETRY_MS").pipe(
    Config.withDescription("How long a step down of the output format lasts before the strongest is tried again"),
    Config.withDefault(FORMAT_RETRY_MS)
  )
})

/**
 * The service the settings describe (AEON_LLM_*), priced by the table; `over` gives one model of a list its own
 * model, endpoint and key (Fallback), the rest shared.
 */
export const fromConfig = (
  c: Config.Config.Success<typeof config>,
  prices: Readonly<Record<string, ModelPrice>>,
  over: ModelOverride = {}
) => {
  const connection = connectionOf(c, over)
  return make(
    { ...connection, stream: c.stream, formatRetryMs: c.formatRetryMs },
    priceOf(prices, connection.model),
    unpricedNotice(prices, connection.model)
  )
}

export const layerConfig = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.zipWith(config, loadPriceTable, (c, prices) => fromConfig(c, prices))
)
