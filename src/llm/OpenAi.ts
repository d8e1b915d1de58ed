import { Config, Duration, Effect, Layer, Option, Redacted, Runtime, Schedule } from "effect"
import OpenAI from "openai"
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

/** A failure worth another try (429, 5xx, a dropped connection), with the wait the server asked for. */
class Retryable {
  constructor(readonly error: ModelError, readonly waitMs: number | undefined) {}
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

/** What a failed request means: a refusal (retried when the status says so) or an endpoint out of reach. */
const failureOf = (endpoint: string, options: OpenAiOptions) => (e: unknown): ModelError | Retryable => {
  if (e instanceof OpenAI.APIError && typeof e.status === "number") {
    // a refused key names where the key comes from
    const message = e.status === 401 || e.status === 403
      ? `${endpoint} refused the API key (AEON_LLM_API_KEY or OPENAI_API_KEY${
        options.apiKey ? "" : ": none is set"
      }): ${e.message}`
      : e.message
    const error = new ModelHttpError({ status: e.status, message })
    return retryable(e.status) ? new Retryable(error, retryAfterMs(e.headers as Headers | undefined)) : error
  }
  const unavailable = new ModelUnavailableError({
    message: `cannot reach ${endpoint} (AEON_LLM_BASE_URL or OPENAI_BASE_URL): ${
      e instanceof Error ? e.message : String(e)
    }`
  })
  // a dropped or refused connection may be gone on the next try (an aborted request is not retried)
  return e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIUserAbortError)
    ? new Retryable(unavailable, undefined)
    : unavailable
}

/** A plain completion as the call's response. */
const responseOf = (completion: OpenAI.Chat.ChatCompletion): LanguageModel.CompletionResponse =>
  answerOf(
    completion.choices[0]?.message?.content ?? "",
    completion.choices[0]?.finish_reason ?? undefined,
    completion.model,
    completion.usage ?? undefined
  )

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

/**
 * A streamed completion read to its end: the text handed to `onText` chunk by chunk, the answer assembled as a plain
 * call returns it (the finish reason of the last chunk that has one, the usage of the closing chunk). A stream that
 * breaks off is an endpoint out of reach, not retried: part of its text has been shown. Interrupting the read aborts
 * the stream (its HTTP request) at once.
 *
 * One promise over the whole stream, `onText` run synchronously in the fiber's runtime (a TextSink never suspends):
 * not `Stream.fromAsyncIterable`, whose effect per chunk made a run of 7 streamed calls (about 175 chunks of 8
 * characters, endpoint in another process, bench row 15) take 35.0 ms against 19.2 ms unstreamed; read so, 20.7 ms.
 */
const assembled = (
  chunks: AsyncIterable<OpenAI.Chat.ChatCompletionChunk> & { readonly controller: AbortController },
  onText: ((text: string) => Effect.Effect<void>) | undefined,
  endpoint: string
) =>
  Effect.flatMap(Effect.runtime<never>(), (runtime) => {
    const show = onText ? Runtime.runSync(runtime) : undefined
    return Effect.tryPromise({
      try: async (signal) => {
        signal.addEventListener("abort", () => chunks.controller.abort())
        let [text, finish, model, usage] = [
          "",
          undefined as string | undefined,
          undefined as string | undefined,
          undefined as OpenAI.CompletionUsage | undefined
        ]
        for await (const chunk of chunks) {
          const choice = chunk.choices[0]
          const piece = choice?.delta?.content ?? ""
          text += piece
          finish = choice?.finish_reason ?? finish
          model ??= chunk.model
          usage = chunk.usage ?? usage
          if (piece !== "" && show) show(onText!(piece))
        }
        return answerOf(text, finish, model, usage)
      },
      catch: (e) =>
        new ModelUnavailableError({
          message: `${endpoint} broke off its answer: ${e instanceof Error ? e.message : String(e)}`
        })
    })
  })

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
  // Endpoints that reject json_schema response formats fall back to JSON mode, remembered per service.
  let jsonModeOnly = false
  // The output cap goes as max_tokens (what OpenAI-compatible servers accept); OpenAI's reasoning models refuse
  // it and want max_completion_tokens: switched on that refusal, remembered per service.
  let completionTokensParam = false

  const endpoint = options.baseURL ?? "https://api.openai.com/v1"
  // Endpoints that refuse streamed answers get plain calls, remembered per service.
  let plainOnly = options.stream === false
  const params = (request: LanguageModel.CompletionRequest, jsonMode: boolean) => ({
    model: options.model,
    messages: [
      { role: "system" as const, content: request.system },
      { role: "user" as const, content: request.user }
    ],
    ...(completionTokensParam
      ? { max_completion_tokens: request.maxOutputTokens }
      : { max_tokens: request.maxOutputTokens }),
    response_format: jsonMode
      ? { type: "json_object" as const }
      : {
        type: "json_schema" as const,
        json_schema: { name: request.promptId, schema: request.jsonSchema as Record<string, unknown>, strict: false }
      }
  })
  const plain = (request: LanguageModel.CompletionRequest, jsonMode: boolean) =>
    Effect.zipRight(
      Effect.sync(() => request.onRequest?.()),
      Effect.tryPromise({
        try: (signal) => client.chat.completions.create(params(request, jsonMode), { signal }),
        catch: failureOf(endpoint, options)
      })
    ).pipe(Effect.map(responseOf))
  const streamed = (request: LanguageModel.CompletionRequest, jsonMode: boolean) =>
    Effect.zipRight(
      Effect.sync(() => request.onRequest?.()),
      Effect.tryPromise({
        try: (signal) =>
          client.chat.completions.create(
            { ...params(request, jsonMode), stream: true, stream_options: { include_usage: true } },
            { signal }
          ),
        catch: failureOf(endpoint, options)
      })
    ).pipe(Effect.flatMap((chunks) => assembled(chunks, request.onText, endpoint)))
  const once = (request: LanguageModel.CompletionRequest, jsonMode: boolean) =>
    plainOnly
      ? plain(request, jsonMode)
      : streamed(request, jsonMode).pipe(
        Effect.catchIf((e) => !plainOnly && refused(/stream/i)(e), () => {
          plainOnly = true
          return plain(request, jsonMode)
        })
      )

  const refused = (pattern: RegExp) => (e: unknown): e is ModelHttpError =>
    e instanceof ModelHttpError && e.status === 400 && pattern.test(e.message)
  const withCapParam = (request: LanguageModel.CompletionRequest, jsonMode: boolean) =>
    once(request, jsonMode).pipe(
      Effect.catchIf((e) => !completionTokensParam && refused(/max_tokens/)(e), () => {
        completionTokensParam = true
        return once(request, jsonMode)
      })
    )
  const withFallback = (request: LanguageModel.CompletionRequest) =>
    withCapParam(request, jsonModeOnly).pipe(
      Effect.catchIf((e) => !jsonModeOnly && refused(/response_format|json_schema/i)(e), () => {
        jsonModeOnly = true
        return withCapParam(request, true)
      })
    )

  const schedule = retrySchedule(options)
  // every request sent counts against the run's call budget: no retry past what is left of it
  const attempt = (
    request: LanguageModel.CompletionRequest
  ): Effect.Effect<LanguageModel.CompletionResponse, ModelError> =>
    Effect.suspend(() => {
      let sent = 0
      const counted = { ...request, onRequest: () => void (sent++, request.onRequest?.()) }
      return withFallback(counted).pipe(
        Effect.tapError((e) =>
          e instanceof Retryable ? Effect.logDebug(`model call failed (${e.error.message}); retrying`) : Effect.void
        ),
        Effect.retry({
          schedule,
          while: (e) => e instanceof Retryable && sent < (request.maxRequests ?? Number.POSITIVE_INFINITY)
        }),
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
