import type { RecordedCall, RunEvent } from "../domain/RunEvent.js"

/** A model call as recorded with its run: its LlmCalled event's figures and the recorded prompt and answer. */
export interface LlmCall extends RecordedCall {
  /** The sequence number of the call's LlmCalled event. */
  readonly seq: number
  readonly at: number
  readonly promptId: string
  readonly model: string
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cachedTokens: number
  readonly cacheWriteTokens: number
  readonly costUsd: number
  readonly latencyMs: number
  readonly failedModels: ReadonlyArray<string>
  /** The tokens are Aeon's estimate: the provider reported none. */
  readonly estimated: boolean
  /** Answered from a recording (a fork, a replay): nothing was sent, nothing paid. */
  readonly replayed: boolean
  /** The call failed (its LlmCalled says how): what it received, if anything, was not taken as its answer. */
  readonly failed: boolean
}

/** The recorded model calls of a run, in order: a projection of its LlmCalled events (none when not recorded). */
export const llmCallsOf = (events: ReadonlyArray<RunEvent>): Array<LlmCall> =>
  events.flatMap((e) =>
    e._tag === "LlmCalled" && e.call !== undefined
      ? [{
        seq: e.seq,
        at: e.at,
        promptId: e.promptId,
        model: e.model,
        inputTokens: e.inputTokens,
        outputTokens: e.outputTokens,
        cachedTokens: e.cachedTokens ?? 0,
        cacheWriteTokens: e.cacheWriteTokens ?? 0,
        costUsd: e.costUsd,
        latencyMs: e.latencyMs,
        failedModels: e.failedModels ?? [],
        estimated: e.estimated === true,
        replayed: e.replayed === true,
        failed: e.error !== undefined,
        ...e.call
      }]
      : []
  )
