import { Either } from "effect"
import type { CompletionResponse } from "./Completion.js"
import type { ModelDecodeError } from "./ModelErrors.js"
import { costOf, type ModelPrice } from "./Pricing.js"
import { countTokens } from "./Tokenizer.js"

/**
 * What one model call used, as recorded: the provider's usage when it reported it, else Aeon's count on the high side
 * (marked estimated), its cost, and its exchange when calls are recorded.
 */

export interface CallUsage {
  readonly model: string
  readonly inputTokens: number
  readonly outputTokens: number
  /** Of the input tokens, those read from the provider's prompt cache. */
  readonly cachedTokens?: number | undefined
  /** Of the input tokens, those written to the provider's prompt cache. */
  readonly cacheWriteTokens?: number | undefined
  readonly costUsd: number
  readonly latencyMs: number
  /** Models of a fallback chain that failed before the one that answered. */
  readonly failedModels?: ReadonlyArray<string> | undefined
  /** Answered from a recording: counted as the recorded call was, but not sent and not paid. */
  readonly replayed?: boolean | undefined
  /** The recorded call it repeats is already in the run's log (a fork's copy): not counted again. */
  readonly repeats?: number | undefined
  /** Requests the call sent the provider (retries included); 1 when the provider does not say. */
  readonly requests?: number | undefined
  /** The call failed: no answer came (its requests still count). */
  readonly error?: string | undefined
  /** The provider reported no usage (missing, 0, not a number): the tokens are counted here, on the high side. */
  readonly estimated?: boolean | undefined
  /** What the provider changed in how it asks (an output format stepped down): the run raises it as an advisory. */
  readonly notice?: string | undefined
  /** What was sent and what came back, when the caller records exchanges. */
  readonly exchange?: Exchange | undefined
}

/** One request to the model and its answer, as recorded (AEON_RECORD_PROMPTS). */
export interface Exchange {
  /** 1, or 2 for the call made again with a larger cap after a truncated answer. */
  readonly attempt: number
  readonly system: string
  readonly user: string
  readonly response?: string | undefined
  readonly thinking?: string | undefined
  readonly finishReason?: string | undefined
  readonly output?: unknown
  readonly decodeError?: string | undefined
  /** The call failed before an answer came (HTTP error, timeout, unreachable). */
  readonly error?: string | undefined
}

/** Why an answer ended, as the provider says it, else as Aeon saw it (cut at its cap, or complete). */
export const finishReasonOf = (response: CompletionResponse) =>
  response.finishReason ?? (response.truncated ? "length" : "stop")

/** What the usage of a call needs to know of it (LanguageModel's call). */
export interface UsageCall {
  readonly model: {
    readonly label: string
    readonly price: ModelPrice
    readonly usage: { readonly provider: boolean; unreported: boolean }
  }
  readonly system: string
  readonly user: string
  readonly recording: boolean
  /** What the record keeps of the model's answer (a run's output guardrails scrub its answer calls'); as is when absent. */
  readonly kept?: (<A>(value: A) => A) | undefined
  readonly inputTokens: () => number
  readonly billedInputTokens: () => number
}

/**
 * A provider that reports no usage bills by its own tokenizer, which may count more than o200k: Aeon's count is
 * raised by this factor for admission and for the usage recorded, so a cap holds by what the provider counts.
 */
export const ESTIMATE_MARGIN = 1.25

/** A token count a provider reported, or undefined when it reported none (absent, 0, not a finite number). */
const reported = (n: number | undefined): number | undefined =>
  typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.round(n) : undefined

/** Whether the response says what the call used. */
export const reportsUsage = (response: CompletionResponse) =>
  response.replayed !== undefined || reported(response.inputTokens) !== undefined

const kept = <A>(call: UsageCall, value: A): A => (call.kept ? call.kept(value) : value)

/** What a call that failed used: no tokens, its requests and its time (and its exchange, when recorded). */
export const failedUsage = (
  call: UsageCall & { readonly attempt: number },
  e: { readonly _tag: string; readonly message: string },
  latencyMs: number,
  requests: number
): CallUsage => ({
  model: call.model.label,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  latencyMs,
  requests,
  error: e._tag,
  ...(call.recording
    ? { exchange: { attempt: call.attempt, system: call.system, user: call.user, error: `${e._tag}: ${e.message}` } }
    : {})
})

/** What a call that reached the model used, with its exchange when recorded. */
export const usageOf = <O>(
  call: UsageCall,
  response: CompletionResponse,
  decoded: Either.Either<O, ModelDecodeError> | undefined,
  measured: { readonly latencyMs: number; readonly requests: number; readonly attempt: number; readonly cap: number }
): CallUsage => {
  // as the provider reports it, also above the cap it was given: an overage is recorded, never hidden
  const reportedInput = reported(response.inputTokens)
  const reportedOutput = reported(response.outputTokens) ??
    (response.text === "" && response.outputTokens === 0 ? 0 : undefined)
  const estimated = call.model.usage.provider && response.replayed === undefined &&
    (reportedInput === undefined || reportedOutput === undefined)
  if (!estimated) {
    return usageFrom(call, response, decoded, measured, {
      input: response.inputTokens ?? call.inputTokens(),
      output: response.outputTokens ?? countTokens(response.text)
    })
  }
  // not reported: the whole request as billed and the answer, on the high side; the answer within the cap the
  // provider was given (it honours max_tokens by its own count)
  return {
    ...usageFrom(call, response, decoded, measured, {
      input: reportedInput ?? call.billedInputTokens(),
      output: reportedOutput ?? Math.min(measured.cap, Math.ceil(countTokens(response.text) * ESTIMATE_MARGIN))
    }),
    estimated: true
  }
}

const usageFrom = <O>(
  call: UsageCall,
  response: CompletionResponse,
  decoded: Either.Either<O, ModelDecodeError> | undefined,
  measured: { readonly latencyMs: number; readonly requests: number; readonly attempt: number },
  tokens: { readonly input: number; readonly output: number }
): CallUsage => {
  const [usedInput, usedOutput] = [tokens.input, tokens.output]
  const cached = response.cachedInputTokens ?? 0
  const written = response.cacheWriteInputTokens ?? 0
  return {
    model: response.replayed?.model ?? response.answeredBy?.label ?? call.model.label,
    inputTokens: usedInput,
    outputTokens: usedOutput,
    ...(cached > 0 ? { cachedTokens: cached } : {}),
    ...(written > 0 ? { cacheWriteTokens: written } : {}),
    costUsd: response.replayed?.costUsd ??
      costOf(response.answeredBy?.price ?? call.model.price, usedInput, usedOutput, cached, written),
    ...(response.replayed ? { replayed: true } : {}),
    ...(response.replayed?.repeats !== undefined ? { repeats: response.replayed.repeats } : {}),
    latencyMs: measured.latencyMs,
    requests: measured.requests,
    ...(response.failedModels?.length ? { failedModels: response.failedModels } : {}),
    ...(response.truncated ? { error: "ModelTruncatedError" } : {}),
    ...(response.notice ? { notice: response.notice } : {}),
    ...(call.recording ?
      {
        exchange: {
          attempt: measured.attempt,
          system: call.system,
          user: call.user,
          response: kept(call, response.text),
          ...(response.thinking ? { thinking: kept(call, response.thinking) } : {}),
          finishReason: finishReasonOf(response),
          ...(decoded === undefined ?
            {}
            : Either.isRight(decoded) ?
            { output: kept(call, decoded.right) }
            : { decodeError: decoded.left.message })
        }
      } :
      {})
  }
}
