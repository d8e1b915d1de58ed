/**
 * A recorded run's calls with side effects checked again under another untrusted-data policy (`aeon replay --policy
 * FILE`, GraphQL `recheckRun`): which calls that policy would have held, decided from the run's log alone — no
 * model, no tool, nothing stored.
 */
import { Effect, Either, Option } from "effect"
import { RunNotFoundError } from "../domain/Errors.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { UntrustedPolicy } from "../domain/UntrustedPolicy.js"
import { attemptPlan, toolCallInput } from "../record/Attempt.js"
import { steering } from "../record/Provenance.js"
import { applyEvent, emptyRecord } from "../record/RunRecord.js"
import { RunStore } from "../store/RunStore.js"

export interface CheckedCall {
  /** The event that decided the call: its request for approval, its failure, or the call made. */
  readonly seq: number
  readonly passNumber: number
  readonly stepId: string
  readonly tool: string
  readonly input: unknown
  /** The run held it for untrusted input (asked a person, or failed it unattended). */
  readonly held: boolean
  /** The other policy would hold it, and why. */
  readonly wouldHold: boolean
  readonly reason?: string | undefined
}

/** The step and pass an event decides a call of, and the input it was decided on. */
const decision = (e: RunEvent) =>
  e._tag === "ApprovalRequested" || e._tag === "ToolInvoked"
    ? {
      passNumber: e.passNumber,
      stepId: e.stepId,
      input: e.input,
      // a request for approval is of a call with side effects; a call made says whether it had any
      sideEffects: e._tag === "ApprovalRequested" || e.actsOutside === true
    }
    : e._tag === "StepFinished" && e.error?.includes("UNTRUSTED_CALL:")
    ? { passNumber: e.passNumber, stepId: e.stepId, input: undefined, sideEffects: true }
    : undefined

/** Each call with side effects the run decided, checked under `policy` (the run's own held or not, as logged). */
export const checkCalls = (
  events: ReadonlyArray<RunEvent>,
  policy: UntrustedPolicy | undefined
): Array<CheckedCall> => {
  const r = emptyRecord()
  const seen = new Set<string>()
  const out: Array<CheckedCall> = []
  for (const e of events) {
    const d = decision(e)
    const step = d && r.attempt ? attemptPlan(r.attempt).steps.find((s) => s.stepId === d.stepId) : undefined
    const key = d && `${d.passNumber}:${d.stepId}`
    if (d && key && step?.tool && r.attempt && !seen.has(key) && d.sideEffects) {
      seen.add(key)
      const input = d.input ?? Either.getOrElse(toolCallInput(r.attempt, step), () => step.toolInput)
      const steered = steering(
        { ...r.provenance, policy },
        step,
        attemptPlan(r.attempt).steps,
        r.attempt.toolOutputs,
        input
      )
      out.push({
        seq: e.seq,
        passNumber: d.passNumber,
        stepId: d.stepId,
        tool: step.tool,
        input,
        held: (e._tag === "ApprovalRequested" && e.reason !== undefined) || e._tag === "StepFinished",
        wouldHold: steered !== undefined,
        ...(steered ? { reason: steered.reason } : {})
      })
    }
    applyEvent(r, e)
  }
  return out
}

/** A stored run's calls checked under `policy`. */
export const recheck = (runId: string, policy: UntrustedPolicy | undefined) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    if (Option.isNone(yield* store.getRun(runId))) return yield* new RunNotFoundError({ runId })
    return checkCalls(yield* store.events(runId), policy)
  })
