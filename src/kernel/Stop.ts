import { Duration, Effect, Exit, Fiber } from "effect"
import type { BudgetDimension } from "../domain/Budget.js"
import type { FinalAnswer, TerminationReason, TTLExpirationResponse } from "../domain/Result.js"
import { passResult } from "../record/Attempt.js"
import type { RunContext } from "./RunContext.js"
import type { RunState } from "./RunState.js"

/** How a run (or one simple iteration) stops, and what it reports when a budget or the TTL stopped it. */
export interface Stop {
  readonly reason: TerminationReason
  readonly point?: "phase_boundary" | "mid_phase" | undefined
  readonly exhausted?: BudgetDimension | undefined
  readonly error?: string | undefined
  /** The error's code a caller may act on (OUTPUT_SCHEMA: the run's answer has no value of its output schema). */
  readonly errorCode?: string | undefined
  /** Nothing another attempt could change (the model provider cannot serve the run): no retry, no escalation. */
  readonly unrecoverable?: boolean | undefined
  /** A tool failed so that retrying cannot fix it, and no other tool does its work (kernel/ToolOutage): in words. */
  readonly toolOutage?: string | undefined
  /**
   * A simple iteration stopped by a tool that timed out or lost its server, another tool able to do its work: answered
   * without a model call (what failed), and the next iteration may plan around it.
   */
  readonly toolFailed?: string | undefined
}

export interface Outcome {
  readonly stop: Stop
  readonly finalAnswer?: FinalAnswer | undefined
  readonly ttlExpiration?: TTLExpirationResponse | undefined
  readonly state: RunState
  /** The pass number the next orchestration (escalation) starts at. */
  readonly nextPass: number
}

const metadataOf = (st: RunState) => ({
  completenessScore: st.assessment?.scores.completenessScore ?? 0,
  coherenceScore: st.assessment?.scores.coherenceScore ?? 0,
  consistencyStatus: st.assessment?.scores.consistencyStatus ?? {},
  detectedIssues: st.assessment?.detectedIssues ?? [],
  reasonCodes: st.assessment?.reasonCodes ?? ["ttl_expired"],
  passNumber: st.lastCompletedPass?.passNumber ?? st.passNumber
})

/** The TTLExpirationResponse of the design documents for a run stopped by a budget. */
export const expiration = (st: RunState, stop: Stop): TTLExpirationResponse => {
  const abandoned = st.abandonedStepIds ?? []
  const partial = passResult(st.plan, st.passNumber, st.currentToolResults, abandoned)
  // at a phase boundary the response carries the last completed pass; with none (nothing completed), it is mid-phase
  const point = stop.point === "phase_boundary" && st.lastCompletedPass ? "phase_boundary" : "mid_phase"
  return {
    converged: false,
    resultType: "ttl_expired",
    expirationPoint: point,
    ...(st.lastCompletedPass ? { latestPassResult: st.lastCompletedPass } : { partialResult: partial }),
    ...(point === "mid_phase" && st.lastCompletedPass &&
        (abandoned.length > 0 || Object.keys(st.currentToolResults).length > 0)
      ? { partialResult: partial }
      : {}),
    ttlExpiredMetadata: metadataOf(st),
    terminationReason: "ttl_expired",
    exhausted: stop.exhausted ?? "ttl"
  }
}

/** The label of the final answer: how the run ended. */
export const labelOf = (stop: Stop) =>
  stop.reason === "converged" ?
    "converged"
    : stop.reason === "ttl_expired" ?
    "ttl_exhausted"
    : stop.reason === "budget_exhausted" ?
    `non-converged: ${stop.exhausted} budget exhausted`
    : stop.reason === "stalled" ?
    "non-converged: stalled"
    : "failed"

/** Completes once the run's deadline has passed (a deadline paused while the run waits for a person moves on). */
const deadlinePassed = (ctx: RunContext) =>
  Effect.gen(function*() {
    while (true) {
      const left = (yield* ctx.guard.remaining).deadlineMs
      if (left <= 0) return
      yield* Effect.sleep(Duration.millis(left))
    }
  })

/**
 * The body, stopped at the run's deadline: its fiber is interrupted then, and awaited (its steps record their own
 * abandonment before anything else happens); an interruption from outside (a cancel) reaches it the same way.
 * Not `Effect.timeoutTo`: its duration is fixed when it starts, and a paused deadline moves while the run waits for a
 * person. Not `Effect.race`: it interrupts the loser without waiting for it, so a cancelled step wrote its
 * abandonment after RunFinished. It costs two fibers per attempt (not per step), so nothing a bench can see.
 */
export const withinDeadline = (ctx: RunContext, body: Effect.Effect<Stop>, atDeadline: Stop) =>
  Effect.gen(function*() {
    const running = yield* Effect.fork(body)
    const watcher = yield* Effect.fork(Effect.zipRight(deadlinePassed(ctx), Fiber.interrupt(running)))
    const exit = yield* Fiber.await(running).pipe(Effect.onInterrupt(() => Fiber.interrupt(running)))
    yield* Fiber.interrupt(watcher)
    if (Exit.isSuccess(exit)) return exit.value
    return Exit.isInterrupted(exit) ? atDeadline : yield* Effect.failCause(exit.cause)
  })
