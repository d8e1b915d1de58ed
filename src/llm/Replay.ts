import { Effect } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import { llmCallsOf } from "../record/LlmCalls.js"
import * as LanguageModel from "./LanguageModel.js"
import { ModelUnavailableError } from "./ModelErrors.js"
import { FREE } from "./Pricing.js"

/** A model call as a run recorded it (its LlmCalled event with the prompt and the answer). */
export interface Recording {
  readonly seq: number
  readonly promptId: string
  readonly model: string
  readonly system: string
  readonly user: string
  readonly response: string
  readonly finishReason: string | undefined
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cachedTokens: number
  readonly costUsd: number
}

/** The recorded calls of a run that got an answer, after `afterSeq`, in order (the run's one projection of them). */
export const recordingsOf = (events: ReadonlyArray<RunEvent>, afterSeq = 0): Array<Recording> =>
  llmCallsOf(events).flatMap((c) =>
    c.seq > afterSeq && c.response !== undefined && !c.failed
      ? [{
        seq: c.seq,
        promptId: c.promptId,
        model: c.model,
        system: c.system,
        user: c.user,
        response: c.response,
        finishReason: c.finishReason,
        inputTokens: c.inputTokens,
        outputTokens: c.outputTokens,
        cachedTokens: c.cachedTokens,
        costUsd: c.costUsd
      }]
      : []
  )

/** The first call no recording answered: what was asked. */
export interface Divergence {
  readonly promptId: string
  readonly user: string
}

export interface ReplayOptions {
  /** The model asked once a call differs from every recording; none: such a call fails (a pure replay). */
  readonly live?: LanguageModel.Service | undefined
  /** The recorded run's id and this one's: prompts name their run (correlation ids), compared with it renamed. */
  readonly renamed?: { readonly from: string; readonly to: string } | undefined
  /** Calls of this run already answered from recordings (before a restart): their recordings are used. */
  readonly used?: ReadonlyArray<{ readonly promptId: string; readonly user: string }> | undefined
  /** This run already asked the live model: it has diverged. */
  readonly diverged?: boolean | undefined
  /**
   * The recordings up to this seq are copied into this run's log (a fork's prefix): a call answered with one of them
   * repeats that copy (a phase the fork point cut is made again on resume) and is marked so, not counted twice.
   */
  readonly copiedUpTo?: number | undefined
}

/**
 * A model answering each call with the recorded answer of the same call — same prompt, same rendered system and user
 * text (the run's id renamed) — each recording used once, in order. From the first call no recording matches, the
 * live model answers (or, with none, the call fails naming its prompt): a changed prompt, budget or plan makes the
 * calls after it live. Replayed calls are marked so (their cost counted as recorded, not paid).
 */
export const make = (recordings: ReadonlyArray<Recording>, options: ReplayOptions = {}) => {
  const left = [...recordings]
  const comparable = (user: string) =>
    options.renamed ? user.replaceAll(options.renamed.to, options.renamed.from) : user
  const take = (promptId: string, user: string, system?: string) => {
    const i = left.findIndex((r) =>
      r.promptId === promptId && r.user === comparable(user) && (system === undefined || r.system === system)
    )
    return i >= 0 ? left.splice(i, 1)[0] : undefined
  }
  for (const u of options.used ?? []) take(u.promptId, u.user)
  let divergence: Divergence | undefined = options.diverged ? { promptId: "", user: "" } : undefined
  const complete: LanguageModel.Service["complete"] = (request) =>
    Effect.suspend(() => {
      if (!divergence) {
        const r = take(request.promptId, request.user, request.system)
        if (r) {
          return Effect.as(LanguageModel.streamText(r.response, request.onText), {
            text: r.response,
            finishReason: r.finishReason,
            truncated: r.finishReason === "length",
            inputTokens: r.inputTokens,
            outputTokens: r.outputTokens,
            cachedInputTokens: r.cachedTokens,
            replayed: {
              model: r.model,
              costUsd: r.costUsd,
              ...(r.seq <= (options.copiedUpTo ?? 0) ? { repeats: r.seq } : {})
            }
          })
        }
        divergence = { promptId: request.promptId, user: request.user }
      }
      return options.live
        ? options.live.complete(request)
        : Effect.fail(
          new ModelUnavailableError({
            message: `replay: no recorded call matches this ${request.promptId} call (it differs from the recording)`
          })
        )
    })
  const live = options.live
  const service = live
    ? LanguageModel.make(live.label, live.price, complete, live.notice)
    : LanguageModel.make("replay", FREE, complete)
  return { service, divergence: () => divergence }
}
