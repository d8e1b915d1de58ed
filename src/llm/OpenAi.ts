import { Config, Duration, Effect, Layer, Option, Redacted, Runtime, Schedule } from "effect"
import OpenAI from "openai"
import { Stream } from "openai/core/streaming"
import * as LanguageModel from "./LanguageModel.js"
import { type ModelError, ModelHttpError, ModelTimeoutError, ModelUnavailableError } from "./ModelErrors.js"
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
}

const retryable = (status: number) => status === 429 || status >= 500

/** Milliseconds the server asked us to wait (retry-after-ms, or retry-after in seconds or as a date). */
const retryAfterMs = (headers: Headers | undefined): number | undefined => {
  const ms = headers?.get("retry-after-ms")
  if (ms && !Number.isNaN(Number(ms))) return Number(ms)
  const after = headers?.get("retry-after")
  if (!after) return undefined
  const seconds = Number(after)
  if (!Number.isNaN(seconds)) return seconds * 1000
  const date = Date.parse(after)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/**
 * A failure worth another try (429, 5xx, a dropped connection, an empty answer), with the wait the server asked for
 * and, for failures that rarely pass (nothing listening, an unknown host, an empty answer), the most retries worth
 * making.
 */
class Retryable {
  constructor(
    readonly error: ModelError,
    readonly waitMs: number | undefined,
    readonly atMost?: number | undefined
  ) {}
}

/**
 * Exponential backoff with jitter, `maxRetries` times, waiting what the server asked for (retry-after) instead when
 * it said; on the Clock, so tests drive it with TestClock. The call's timeout bounds the retries too.
 */
const retrySchedule = (options: OpenAiOptions) =>
  Schedule.exponential(Duration.millis(options.retryBaseMs ?? 500)).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(options.maxRetries)),
    Schedule.zipRight(Schedule.identity<ModelError | Retryable>()),
    Schedule.modifyDelay((e, delay) =>
      e instanceof Retryable && e.waitMs !== undefined ? Duration.millis(e.waitMs) : delay
    )
  )

/**
 * The system error code under a failed request (ECONNREFUSED, ENOTFOUND, …), looked for along its causes; fetch's
 * own refusals of the URL (a port it blocks, a URL it cannot parse) have none and are named BAD_URL.
 */
const errorCode = (e: unknown): string | undefined => {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) {
    const code = (c as { code?: unknown }).code
    if (typeof code === "string") return code
    if (/^(bad port|invalid url)/i.test(c.message)) return "BAD_URL"
  }
  return undefined
}

/** What a connection failure means, in words; `lasting` when another try soon after rarely helps. */
const CONNECTION_CAUSES: Record<string, { readonly words: string; readonly lasting: boolean }> = {
  ECONNREFUSED: { words: "connection refused: nothing listens there", lasting: true },
  BAD_URL: { words: "fetch refuses this URL (a blocked port, or not a URL)", lasting: true },
  ENOTFOUND: { words: "host not found", lasting: true },
  EAI_AGAIN: { words: "host name lookup failed", lasting: true },
  EHOSTUNREACH: { words: "host unreachable", lasting: true },
  ENETUNREACH: { words: "network unreachable", lasting: true },
  ECONNRESET: { words: "connection reset", lasting: false },
  ETIMEDOUT: { words: "connection timed out", lasting: false },
  UND_ERR_SOCKET: { words: "connection closed by the server", lasting: false }
}

/** An HTTP refusal that retrying cannot change: the key (401/403), the model or the path (404), a model it does not know. */
const lastingRefusal = (status: number, message: string) =>
  status === 401 || status === 403 || status === 404 ||
  (status === 400 && /model/i.test(message) &&
    /not (?:found|exist|support)|does not exist|unknown|invalid/i.test(message))

/** What a failed request means: a refusal (retried when the status says so) or an endpoint out of reach. */
const failureOf = (endpoint: string, options: OpenAiOptions) => (e: unknown): ModelError | Retryable => {
  if (e instanceof OpenAI.APIError && typeof e.status === "number") {
    // a refused key names where the key comes from; an unknown model, where the model comes from
    const message = e.status === 401 || e.status === 403
      ? `${endpoint} refused the API key (AEON_LLM_API_KEY or OPENAI_API_KEY${
        options.apiKey ? "" : ": none is set"
      }): ${e.message}`
      : e.status === 404 || lastingRefusal(e.status, e.message)
      ? `${endpoint} does not serve model ${options.model} (AEON_MODEL) or this path: ${e.message}`
      : e.message
    const error = new ModelHttpError({ status: e.status, message, lasting: lastingRefusal(e.status, e.message) })
    return retryable(e.status) ? new Retryable(error, retryAfterMs(e.headers as Headers | undefined)) : error
  }
  const code = errorCode(e)
  const cause = code ? CONNECTION_CAUSES[code] : undefined
  const unavailable = new ModelUnavailableError({
    message: `cannot reach ${endpoint} (AEON_LLM_BASE_URL or OPENAI_BASE_URL): ${
      cause ? `${cause.words} (${code})` : e instanceof Error ? e.message : String(e)
    }`,
    ...(cause?.lasting ? { lasting: true } : {})
  })
  // a dropped or refused connection may be gone on the next try (an aborted request is not retried); one that
  // found nothing listening, or no such host, gets one more try only
  return e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIUserAbortError)
    ? new Retryable(unavailable, undefined, cause?.lasting ? 1 : undefined)
    : unavailable
}

/** The parts of a completion Aeon reads; a provider's usage as it reported it (LanguageModel judges it). */
const answerOf = (
  text: string,
  finishReason: string | undefined,
  model: string | undefined,
  usage: OpenAI.CompletionUsage | undefined
): LanguageModel.CompletionResponse => ({
  text,
  // cut at max_tokens: not a complete answer, however well its text parses
  truncated: finishReason === "length",
  finishReason,
  model,
  inputTokens: usage?.prompt_tokens,
  outputTokens: usage?.completion_tokens,
  cachedInputTokens: usage?.prompt_tokens_details?.cached_tokens ?? undefined
})

/** A plain completion as the call's response (a provider's JSON body, also when a stream was asked for). */
const responseOf = (completion: OpenAI.Chat.ChatCompletion): LanguageModel.CompletionResponse =>
  answerOf(
    completion.choices?.[0]?.message?.content ?? "",
    completion.choices?.[0]?.finish_reason ?? undefined,
    completion.model,
    completion.usage ?? undefined
  )

/**
 * A streamed completion read to its end: the text handed to `onText` chunk by chunk, the answer assembled as a plain
 * call returns it (the finish reason of the last chunk that has one, the usage of the closing chunk). A stream that
 * breaks off is an endpoint out of reach, not retried: part of its text has been shown. Interrupting the read aborts
 * the stream (its HTTP request) at once.
 *
 * One promise over the whole stream, `onText` run synchronously in the fiber's runtime (a TextSink never suspends):
 * not `Stream.fromAsyncIterable`, whose effect per chunk costs about twice as much per streamed call (bench row 15).
 */
const assembled = (
  chunks: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>,
  controller: AbortController,
  onText: ((text: string) => Effect.Effect<void>) | undefined,
  endpoint: string
) =>
  Effect.flatMap(Effect.runtime<never>(), (runtime) => {
    const show = onText ? Runtime.runSync(runtime) : undefined
    return Effect.tryPromise({
      try: async (signal) => {
        signal.addEventListener("abort", () => controller.abort())
        let [text, finish, model, usage] = [
          "",
          undefined as string | undefined,
          undefined as string | undefined,
          undefined as OpenAI.CompletionUsage | undefined
        ]
        for await (const chunk of chunks) {
          const choice = chunk.choices?.[0]
          const piece = choice?.delta?.content ?? ""
          text += piece
          finish = choice?.finish_reason ?? finish
          model ??= chunk.model
          usage = chunk.usage ?? usage
          if (piece !== "" && show && onText) show(onText(piece))
        }
        return answerOf(text, finish, model, usage)
      },
      catch: (e) =>
        new ModelUnavailableError({
          message: `${endpoint} broke off its answer: ${e instanceof Error ? e.message : String(e)}`
        })
    })
  })

/**
 * The answer in an HTTP response, by what the server sent rather than what was asked: a JSON body is the completion
 * (some gateways answer a stream request so: its usage is the bill), server-sent events are a stream.
 */
const readAnswer = (
  response: Response,
  controller: AbortController,
  onText: ((text: string) => Effect.Effect<void>) | undefined,
  endpoint: string
): Effect.Effect<LanguageModel.CompletionResponse, ModelError> =>
  (response.headers.get("content-type") ?? "").includes("json")
    ? Effect.tryPromise({
      try: () => response.json() as Promise<OpenAI.Chat.ChatCompletion>,
      catch: (e) =>
        new ModelUnavailableError({
          message: `${endpoint} sent a body that is not JSON: ${e instanceof Error ? e.message : String(e)}`
        })
    }).pipe(
      Effect.map(responseOf),
      Effect.tap((r) => (onText && r.text !== "" ? onText(r.text) : Effect.void))
    )
    : assembled(Stream.fromSSEResponse(response, controller), controller, onText, endpoint)

/** An answer with no content and no output tokens: the provider failed, whatever its status said. */
const isEmpty = (r: LanguageModel.CompletionResponse) =>
  r.text.trim() === "" && !(typeof r.outputTokens === "number" && r.outputTokens > 0) && !r.truncated

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

/** The service for `options`; without a price, the built-in table's (and its notice when the model is not in it). */
export const make = (options: OpenAiOptions, priced?: ModelPrice, pricedNotice?: string): LanguageModel.Service => {
  const price = priced ?? priceOf(DEFAULT_PRICES, options.model)
  const notice = priced === undefined ? unpricedNotice(DEFAULT_PRICES, options.model) : pricedNotice
  const client = new OpenAI({
    apiKey: options.apiKey ?? "not-needed",
    baseURL: options.baseURL,
    maxRetries: 0,
    timeout: options.timeoutMs + 1_000
  })
  // How the output format is asked for, stepped down per service when the endpoint refuses it or ignores it.
  let format: OutputFormat = "json_schema"
  // The output cap goes as max_tokens (what OpenAI-compatible servers accept); OpenAI's reasoning models refuse
  // it and want max_completion_tokens: switched on that refusal, remembered per service.
  let completionTokensParam = false

  const endpoint = options.baseURL ?? "https://api.openai.com/v1"
  const stream = options.stream !== false
  const params = (request: LanguageModel.CompletionRequest, asked: OutputFormat) => ({
    model: options.model,
    messages: [
      { role: "system" as const, content: asked === "prompt" ? withSchemaInPrompt(request) : request.system },
      { role: "user" as const, content: request.user }
    ],
    ...(completionTokensParam
      ? { max_completion_tokens: request.maxOutputTokens }
      : { max_tokens: request.maxOutputTokens }),
    ...(asked === "json_schema"
      ? {
        response_format: {
          type: "json_schema" as const,
          json_schema: { name: request.promptId, schema: request.jsonSchema as Record<string, unknown>, strict: false }
        }
      }
      : asked === "json_object"
      ? { response_format: { type: "json_object" as const } }
      : {})
  })
  // One request; the answer read by what came back (a JSON body or a stream), whatever was asked for. Its own abort
  // controller, aborted when the fiber is interrupted while waiting for the response or reading its body.
  let plainOnly = !stream
  const once = (
    request: LanguageModel.CompletionRequest,
    asked: OutputFormat
  ): Effect.Effect<LanguageModel.CompletionResponse, ModelError | Retryable> =>
    Effect.suspend(() => {
      const controller = new AbortController()
      const streaming = !plainOnly
      return Effect.zipRight(
        Effect.sync(() => request.onRequest?.()),
        Effect.tryPromise({
          try: (signal) => {
            signal.addEventListener("abort", () => controller.abort())
            const body = params(request, asked)
            return (streaming
              ? client.chat.completions.create(
                { ...body, stream: true, stream_options: { include_usage: true } },
                { signal: controller.signal }
              )
              : client.chat.completions.create(body, { signal: controller.signal })).asResponse()
          },
          catch: failureOf(endpoint, options)
        })
      ).pipe(
        Effect.flatMap((response) => readAnswer(response, controller, request.onText, endpoint)),
        Effect.catchIf((e) => streaming && refused(/stream/i)(e), () => {
          // an endpoint that refuses streamed answers gets plain calls, remembered per service
          plainOnly = true
          return once(request, asked)
        })
      )
    })

  const refused = (pattern: RegExp) => (e: unknown): e is ModelHttpError =>
    e instanceof ModelHttpError && e.status === 400 && pattern.test(e.message)
  const withCapParam = (request: LanguageModel.CompletionRequest, asked: OutputFormat) =>
    once(request, asked).pipe(
      Effect.catchIf((e) => !completionTokensParam && refused(/max_tokens/)(e), () => {
        completionTokensParam = true
        return once(request, asked)
      })
    )
  /** Steps the format down when the server refuses it (400) or answers prose to it; the step is remembered. */
  const withFormat = (
    request: LanguageModel.CompletionRequest
  ): Effect.Effect<LanguageModel.CompletionResponse, ModelError | Retryable> => {
    const asked = format
    const lower = NEXT_FORMAT[asked]
    const stepDown = () => {
      if (format === asked) format = lower!
      return withFormat(request)
    }
    return withCapParam(request, asked).pipe(
      Effect.catchIf((e) => lower !== undefined && refused(/response_format|json_schema|json_object/i)(e), stepDown),
      Effect.flatMap((r) =>
        lower !== undefined && !r.truncated && LanguageModel.isProse(r.text) ? stepDown() : Effect.succeed(r)
      ),
      Effect.flatMap((r) =>
        isEmpty(r)
          ? Effect.fail(
            new Retryable(
              new ModelUnavailableError({ message: `${endpoint} answered with no content and no output tokens` }),
              undefined,
              1
            )
          )
          : Effect.succeed(r)
      )
    )
  }

  const schedule = retrySchedule(options)
  // every request sent counts against the run's call budget: no retry past what is left of it
  const attempt = (
    request: LanguageModel.CompletionRequest
  ): Effect.Effect<LanguageModel.CompletionResponse, ModelError> =>
    Effect.suspend(() => {
      let sent = 0
      // retries of failures that rarely pass, by kind of failure
      const retriedOf = new Map<string, number>()
      const counted = { ...request, onRequest: () => void (sent++, request.onRequest?.()) }
      const worthRetrying = (e: ModelError | Retryable) => {
        if (!(e instanceof Retryable) || sent >= (request.maxRequests ?? Number.POSITIVE_INFINITY)) return false
        if (e.atMost === undefined) return true
        const retried = retriedOf.get(e.error.message) ?? 0
        retriedOf.set(e.error.message, retried + 1)
        return retried < e.atMost
      }
      return withFormat(counted).pipe(
        Effect.tapError((e) =>
          e instanceof Retryable ? Effect.logDebug(`model call failed (${e.error.message}); retrying`) : Effect.void
        ),
        Effect.retry({ schedule, while: worthRetrying }),
        Effect.mapError((e) => (e instanceof Retryable ? e.error : e))
      )
    })

  return LanguageModel.make(`openai:${options.model}`, price, (request) =>
    attempt(request).pipe(
      // The timeout covers one call including its retries; interrupting aborts the HTTP request through the signal.
      Effect.timeoutFail({
        duration: Duration.millis(options.timeoutMs),
        onTimeout: () => new ModelTimeoutError({ promptId: request.promptId, timeoutMs: options.timeoutMs })
      })
    ), notice)
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
  )
})

/**
 * The service the settings describe (AEON_LLM_*), priced by the table; `over` gives one model of a list its own
 * model, endpoint and key (Fallback), the rest shared.
 */
export const fromConfig = (
  c: Config.Config.Success<typeof config>,
  prices: Readonly<Record<string, ModelPrice>>,
  over: {
    readonly model?: string | undefined
    readonly baseURL?: string | undefined
    readonly apiKey?: Option.Option<Redacted.Redacted> | undefined
  } = {}
) => {
  const model = over.model ?? c.model
  return make(
    {
      apiKey: Option.getOrUndefined(Option.map(over.apiKey ?? c.apiKey, Redacted.value)),
      baseURL: over.baseURL ?? Option.getOrUndefined(c.baseURL),
      model,
      timeoutMs: c.timeoutMs,
      maxRetries: c.maxRetries,
      stream: c.stream
    },
    priceOf(prices, model),
    unpricedNotice(prices, model)
  )
}

export const layerConfig = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.zipWith(config, loadPriceTable, (c, prices) => fromConfig(c, prices))
)
