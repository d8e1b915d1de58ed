import type { Usage } from "../domain/Budget.js"
import type { SimpleIterationRecord } from "../domain/SimpleIteration.js"
import type { Outcome, ResumePoint } from "../kernel/Orchestrator.js"
import { initialState, stateOf } from "../kernel/RunState.js"
import { attemptPlan, type AttemptRecord, inFlightSteps } from "../record/Attempt.js"
import type { RunRecord } from "../record/RunRecord.js"

/** How far a run got before its process died, read from its persisted events. */
export interface Progress {
  readonly startedAt: number
  readonly usage: Usage
  readonly simpleRecords: ReadonlyArray<SimpleIterationRecord>
  readonly escalationContext?: string | undefined
  /** The attempt (simple iteration or multi-pass run) in progress, if one had started. */
  readonly attempt?: {
    readonly firstPass: number
    readonly resume: ResumePoint
    /** Steps started and not finished when the process stopped: they run again. */
    readonly inFlight: ReadonlyArray<string>
    readonly singlePass: boolean
  } | undefined
  /** The pass the next attempt starts at. */
  readonly nextPass: number
  /** The plan of the last finished simple iteration (the next record's change summary compares with it). */
  readonly previousPlan?: string | undefined
  /** The last simple iteration, when it had finished and nothing had started since: what the run goes on from. */
  readonly lastIteration?: Outcome | undefined
}

/**
 * Where an attempt goes on from: before its plan; at synthesis, when its last pass converged and finished (only
 * the answer was left to make); at the next pass, after a finished one; at the end of a pass whose refinement was
 * applied (its steps belong to the next pass); or inside the pass that was running.
 */
const resumePoint = (a: AttemptRecord): ResumePoint =>
  a.lastFinished === undefined
    ? { stage: "plan" }
    : a.lastFinished === a.lastStarted && a.convergedPass === a.lastFinished
    ? { stage: "converged" }
    : a.lastFinished === a.lastStarted
    ? { stage: "boundary", nextPass: a.lastFinished + 1 }
    : a.refinedPass === a.lastStarted
    ? { stage: "refined", passNumber: a.lastStarted }
    : { stage: "execute", passNumber: a.lastStarted }

/** Where a stopped run goes on from: a projection of its record (the fold of its stored events). */
export const progressOf = (r: RunRecord, mode: string): Progress => {
  const a = r.attempt
  return {
    startedAt: r.started?.at ?? 0,
    usage: r.usage,
    // copied: the record goes on changing as the resumed run emits
    simpleRecords: [...r.simpleRecords],
    escalationContext: r.escalation?.failureSummary.summary,
    attempt: a && {
      firstPass: a.firstPass,
      resume: resumePoint(a),
      inFlight: inFlightSteps(a),
      singlePass: mode !== "FULL" && !r.escalation
    },
    nextPass: r.lastPassNumber + 1,
    previousPlan: r.lastIteration?.attempt &&
      attemptPlan(r.lastIteration.attempt).steps.map((s) => s.description).join("; "),
    lastIteration: !a && !r.escalation && r.lastIteration ? iterationOutcome(r, r.lastIteration) : undefined
  }
}

/** A finished iteration's outcome, from its SimpleIterationFinished event and its attempt. */
const iterationOutcome = (r: RunRecord, last: NonNullable<RunRecord["lastIteration"]>): Outcome => {
  const e = last.event
  return {
    stop: {
      // stored before this field existed: the record's test status tells converged from not
      reason: e.terminationReason ?? (e.record.testStatus === "passed" ? "converged" : "stalled"),
      ...(e.error ? { error: e.error } : {})
    },
    finalAnswer: e.finalAnswer,
    ttlExpiration: e.ttlExpiration,
    // (an iteration whose attempt left no events, not from a run of this version: nothing planned)
    state: last.attempt ? stateOf(last.attempt) : initialState(r.started?.task ?? "", r.lastPassNumber),
    nextPass: r.lastPassNumber + 1
  }
}
