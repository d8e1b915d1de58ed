import { Duration, Predicate, Schedule } from "effect"
import OpenAI from "openai"
import { codeOf } from "../support/Fields.js"
import { messageOf } from "../support/Thrown.js"
import { type ModelError, ModelHttpError, ModelUnavailableError } from "./ModelErrors.js"

/**
 * What a failed request to an OpenAI-compatible endpoint means: a refusal retrying cannot change (a key, a model, a
 * path), one worth retrying (429, 5xx, a dropped connection) and how soon, or an endpoint out of reach (nothing
 * listening, no such host: one more try at most), each in words naming the URL and where it comes from.
 */

/** The settings of OpenAi's options these rules read. */
interface OpenAiOptions {
  readonly apiKey?: string | undefined
  readonly model: string
  readonly maxRetries: number
  readonly retryBaseMs?: number | undefined
}

export const retryable = (status: number) => status === 429 || status >= 500

/** Milliseconds the server asked us to wait (retry-after-ms, or retry-after in seconds or as a date). */
export const retryAfterMs = (headers: Headers | undefined): number | undefined => {
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
export class Retryable {
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
export const retrySchedule = (options: OpenAiOptions) =>
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
    const code = codeOf(c)
    if (code !== undefined) return code
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
  UND_ERR_SOCKET: { words: "connection closed by the server", lasting: false },
  UND_ERR_CONNECT_TIMEOUT: { words: "connection timed out", lasting: false },
  EPROTO: { words: "TLS handshake failed (is it https on an http port?)", lasting: true },
  ERR_SSL_WRONG_VERSION_NUMBER: { words: "TLS handshake failed (is it https on an http port?)", lasting: true },
  CERT_HAS_EXPIRED: { words: "its TLS certificate has expired", lasting: true },
  DEPTH_ZERO_SELF_SIGNED_CERT: { words: "its TLS certificate is self-signed", lasting: true },
  SELF_SIGNED_CERT_IN_CHAIN: { words: "its TLS certificate is not trusted (self-signed chain)", lasting: true },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { words: "its TLS certificate cannot be verified", lasting: true },
  ERR_TLS_CERT_ALTNAME_INVALID: { words: "its TLS certificate names another host", lasting: true }
}

/**
 * A refusal of the request's shape — its output format, a parameter, streaming, the output cap — not of the model:
 * a reason to change the request (OpenAi steps the format down, sends the other cap parameter, stops streaming),
 * never to end the run. vLLM, TGI, LM Studio and OpenAI word it "response_format json_schema is not supported by this
 * model", "Unsupported parameter: …", "Unknown response_format type", "'response_format.type' must be …".
 */
export const refusesShape = (message: string) =>
  REFUSES_FORMAT.test(message) || /guided|parameter|max_(?:completion_)?tokens|stream/i.test(message)

/** A refusal of the output format asked for: OpenAi steps the format down. */
export const REFUSES_FORMAT = /response_format|json_schema|json_object|structured output/i

/**
 * An HTTP refusal that retrying cannot change: the key (401/403), the model or the path (404), a model it does not
 * know (a 400 naming the model, unless it refuses the request's shape).
 */
const lastingRefusal = (status: number, message: string) =>
  status === 401 || status === 403 || status === 404 ||
  (status === 400 && /model/i.test(message) && !refusesShape(message) &&
    /not (?:found|exist|support)|does not exist|unknown|invalid/i.test(message))

/** What a failed request means: a refusal (retried when the status says so) or an endpoint out of reach. */
export const failureOf = (endpoint: string, options: OpenAiOptions) => (e: unknown): ModelError | Retryable => {
  if (e instanceof OpenAI.APIError && typeof e.status === "number") {
    // a refused key names where the key comes from; an unknown model, where the model comes from
    const message = e.status === 401 || e.status === 403
      ? `${endpoint} refused the API key (AEON_LLM_API_KEY or OPENAI_API_KEY${
        options.apiKey ? "" : ": none is set"
      }): ${e.message}`
      : lastingRefusal(e.status, e.message)
      ? `${endpoint} does not serve model ${options.model} (AEON_MODEL) or this path: ${e.message}`
      : e.message
    const error = new ModelHttpError({ status: e.status, message, lasting: lastingRefusal(e.status, e.message) })
    return retryable(e.status) ? new Retryable(error, retryAfterMs(e.headers as Headers | undefined)) : error
  }
  return connectionFailure(
    endpoint,
    "AEON_LLM_BASE_URL or OPENAI_BASE_URL",
    e,
    e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIUserAbortError)
  )
}

/**
 * A request that got no answer at all, named the same way for every provider: where the URL comes from and why
 * (refused, host not found, TLS, …, with its code). A dropped connection may be gone on the next try (an aborted
 * request is not retried); one that found nothing listening, or no such host, gets one more try only and then ends
 * the run (lasting): asking again in this run would fail the same way.
 */
export const connectionFailure = (
  endpoint: string,
  urlNames: string,
  e: unknown,
  retry: boolean
): ModelError | Retryable => {
  const code = errorCode(e)
  const cause = code ? CONNECTION_CAUSES[code] : undefined
  const unavailable = new ModelUnavailableError({
    message: `cannot reach ${endpoint} (${urlNames}): ${cause ? `${cause.words} (${code})` : causeText(e)}`,
    ...(cause?.lasting ? { lasting: true } : {})
  })
  return retry ? new Retryable(unavailable, undefined, cause?.lasting ? 1 : undefined) : unavailable
}

/** The deepest message under a failure ("fetch failed" says nothing; its cause says what failed). */
const causeText = (e: unknown): string => {
  let text = messageOf(e)
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) {
    if (c.message && !/^(fetch failed|connection error\.?|request failed)$/i.test(c.message.trim())) text = c.message
  }
  return text
}

/**
 * fetch with a failed answer's body in OpenAI's shape: vLLM and other servers put the message at the top level
 * (`{"object":"error","message":…}`), which the `openai` client reads as "status code (no body)" — the words that say
 * what was refused (a format, a parameter, a model) would be lost. Other answers pass untouched.
 */
export const withOpenAiErrorBodies =
  (fetch: typeof globalThis.fetch): typeof globalThis.fetch => async (input, init) => {
    const response = await fetch(input, init)
    if (response.ok || !(response.headers.get("content-type") ?? "").includes("json")) return response
    const text = await response.text()
    const body = ((): unknown => {
      try {
        return JSON.parse(text)
      } catch {
        return undefined
      }
    })()
    const top = Predicate.isRecord(body) ? body : undefined
    const reshaped = top && top.error === undefined && typeof top.message === "string"
      ? JSON.stringify({ error: { message: top.message, type: top.type, code: top.code } })
      : text
    const headers = new Headers(response.headers)
    headers.delete("content-length")
    headers.delete("content-encoding")
    return new Response(reshaped, { status: response.status, statusText: response.statusText, headers })
  }
