import { Config, Duration, Effect, Option, Redacted } from "effect"
import * as LanguageModel from "./LanguageModel.js"
import { type ModelError, ModelHttpError, ModelTimeoutError, ModelUnavailableError } from "./ModelErrors.js"
import { connectionOf, type ModelOverride } from "./ModelOverride.js"
import { Retryable, retrySchedule } from "./OpenAiFailures.js"
import { DEFAULT_PRICES, type ModelPrice, priceOf, unpricedNotice } from "./Pricing.js"

const makeService = LanguageModel.make

/**
 * What the providers with an API of their own (Anthropic, Gemini) share: a call's retries, each request counted
 * against the run's call budget, and their settings read the same way (each with its own key and URL names).
 */

/** The call with its retries: every request counted, none sent past the call's budget, a rare failure retried once. */
export const withRetries = (
  options: { readonly model: string; readonly maxRetries: number; readonly retryBaseMs?: number | undefined },
  request: LanguageModel.CompletionRequest,
  once: (
    request: LanguageModel.CompletionRequest
  ) => Effect.Effect<LanguageModel.CompletionResponse, ModelError | Retryable>
) =>
  Effect.suspend(() => {
    let sent = 0
    const counted = { ...request, onRequest: () => void (sent++, request.onRequest?.()) }
    return once(counted).pipe(
      Effect.retry({
        schedule: retrySchedule(options),
        while: (e) =>
          e instanceof Retryable && sent < (request.maxRequests?.() ?? Number.POSITIVE_INFINITY) &&
          (e.atMost === undefined || sent <= e.atMost)
      }),
      Effect.mapError((e): ModelError => (e instanceof Retryable ? e.error : e))
    )
  })

/** A native provider's options, as its settings give them. */
export interface NativeOptions {
  readonly apiKey?: string | undefined
  readonly baseURL?: string | undefined
  readonly model: string
  readonly timeoutMs: number
  readonly maxRetries: number
  readonly retryBaseMs?: number
  readonly thinkingTokens?: number | undefined
}

/** The settings: AEON_LLM_API_KEY then the provider's key names, AEON_LLM_BASE_URL then its URL name, its model. */
export const nativeConfig = (keys: ReadonlyArray<string>, urlName: string, defaultModel: string) =>
  Config.all({
    apiKey: Config.option(
      keys.reduce(
        (c: Config.Config<Redacted.Redacted>, name) => Config.orElse(c, () => Config.redacted(name)),
        Config.redacted("AEON_LLM_API_KEY")
      )
    ),
    baseURL: Config.option(Config.string("AEON_LLM_BASE_URL").pipe(Config.orElse(() => Config.string(urlName)))),
    model: Config.string("AEON_MODEL").pipe(Config.withDefault(defaultModel)),
    timeoutMs: Config.integer("AEON_LLM_TIMEOUT_MS").pipe(Config.withDefault(60_000)),
    maxRetries: Config.integer("AEON_LLM_MAX_RETRIES").pipe(Config.withDefault(3)),
    thinkingTokens: Config.option(
      Config.integer("AEON_THINKING_TOKENS").pipe(
        Config.withDescription("A thinking budget for each call (Claude, Gemini), reserved in the call's cap"),
        Config.validate({
          message: "AEON_THINKING_TOKENS must be 1024 to 64000",
          validation: (n) => n >= 1024 && n <= 64_000
        })
      )
    )
  })
export type NativeConfig = Config.Config.Success<ReturnType<typeof nativeConfig>>

/** The service the settings describe, priced by the table; `over` gives one model of a list its own model and URL. */
export const fromNativeConfig =
  (make: (o: NativeOptions, price: ModelPrice, notice?: string) => LanguageModel.Service) =>
  (
    c: NativeConfig,
    prices: Readonly<Record<string, ModelPrice>>,
    over: ModelOverride = {}
  ) => {
    const connection = connectionOf(c, over)
    return make(
      { ...connection, thinkingTokens: Option.getOrUndefined(c.thinkingTokens) },
      priceOf(prices, connection.model),
      unpricedNotice(prices, connection.model)
    )
  }

/**
 * A native provider's service: its label (`provider:model`), its price (the built-in table's when none is given, and
 * the notice of a model it lacks), each call with its retries within the call's timeout, the attachments it reads.
 */
export const nativeService = (
  provider: string,
  options: NativeOptions,
  once: (
    request: LanguageModel.CompletionRequest
  ) => Effect.Effect<LanguageModel.CompletionResponse, ModelError | Retryable>,
  accepts: (mediaType: string, byUrl: boolean) => boolean,
  priced?: ModelPrice,
  pricedNotice?: string
): LanguageModel.Service => {
  const price = priced ?? priceOf(DEFAULT_PRICES, options.model)
  const notice = priced === undefined ? unpricedNotice(DEFAULT_PRICES, options.model) : pricedNotice
  const service = makeService(
    `${provider}:${options.model}`,
    price,
    (request) =>
      withRetries(options, request, once).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(options.timeoutMs),
          onTimeout: () => new ModelTimeoutError({ promptId: request.promptId, timeoutMs: options.timeoutMs })
        })
      ),
    notice,
    options.thinkingTokens
  )
  return { ...service, unpriced: notice === undefined ? [] : [options.model], accepts }
}

/**
 * What a native provider's refusal means: a refused key or an unknown model (404) ends the run at once, naming the
 * settings; 429 (waiting what the server said) and 5xx are retried; anything else is the provider's words.
 */
export const refusalOf = (
  url: string,
  options: NativeOptions,
  keyNames: string,
  refusal: {
    readonly status: number
    readonly message: string
    readonly badKey: boolean
    readonly waitMs?: number | undefined
  }
): ModelError | Retryable => {
  const message = refusal.badKey
    ? `${url} refused the API key (${keyNames}${options.apiKey ? "" : ": none is set"}): ${refusal.message}`
    : refusal.status === 404
    ? `${url} does not serve model ${options.model} (AEON_MODEL): ${refusal.message}`
    : refusal.message
  const error = new ModelHttpError({
    status: refusal.status,
    message,
    lasting: refusal.badKey || refusal.status === 404
  })
  return refusal.status === 429 || refusal.status >= 500 ? new Retryable(error, refusal.waitMs) : error
}

/**
 * A provider's calls without a key for its own endpoint: refused at once, before any request, naming where the key
 * comes from (a provider asked for with no key goes nowhere; a server of one's own, AEON_LLM_BASE_URL, may need none).
 */
export const keyed = <A, E>(
  provider: string,
  keyNames: string,
  options: { readonly apiKey?: string | undefined; readonly baseURL?: string | undefined },
  call: (request: LanguageModel.CompletionRequest) => Effect.Effect<A, E | ModelError>
) =>
(request: LanguageModel.CompletionRequest): Effect.Effect<A, E | ModelError> =>
  options.apiKey !== undefined || options.baseURL !== undefined
    ? call(request)
    : Effect.fail(
      new ModelUnavailableError({
        message:
          `no API key is set for ${provider} (${keyNames}): set one, or choose another provider (AEON_MODEL_PROVIDER)`,
        lasting: true
      })
    )
