import type { Usage } from "../domain/Budget.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { SimpleIterationRecord } from "../domain/SimpleIteration.js"
import type { Outcome, ResumePoint } from "../kernel/Orchestrator.js"
import type { RunState } from "../kernel/RunContext.js"
import { attemptPlan, type AttemptRecord, emptyAttempt, foldEvents, type RunRecord } from "./RunRecord.js"

/** How far a run got before its process died, read from its persisted events. */
export interface Progress {
  readonly startedAt: number
  readonly usage: Usage
  readonly simpleRecords: ReadonlyArray<SimpleIterationRecord>
  readonly escalationContext?: string | undefined
  /** The attempt (simple iteration or multi-pass run) in progress, if one had started. */
  readonly attempt?: {
    readonly firstPass: number
    readonly state: RunState
    readonly resume: ResumePoint
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
 * the answer was left to make); at the next pass, after a finished one; or inside the pass that was running.
 */
const resumePoint = (a: AttemptRecord): ResumePoint =>
  a.lastFinished === undefined
    ? { stage: "plan" }
    : a.lastFinished === a.lastStarted && a.convergedPass === a.lastFinished
    ? { stage: "converged" }
    : a.lastFinished === a.lastStarted
    ? { stage: "boundary", nextPass: a.lastFinished + 1 }
    : { stage: "execute", passNumber: a.lastStarted }

/**
 * The kernel's state at the crash, projected from the run's record: completed steps stay completed, a step cut off
 * mid-way runs again (its finished tool call does not), the memory is as the tool calls left it.
 */
const kernelState = (a: AttemptRecord): RunState => {
  const plan = attemptPlan(a)
  return {
    plan: { goal: plan.goal, steps: plan.steps.map((s) => (s.status === "running" ? { ...s, status: "pending" } : s)) },
    passNumber: a.passNumber,
    ttlRemaining: a.ttlRemaining,
    profiled: a.profiled ? { ...a.profiled, advisories: [] } : undefined,
    report: a.report,
    assessment: a.assessment,
    ledger: a.ledger,
    advisories: [...a.advisories],
    followUpQuestions: [...a.followUpQuestions],
    manualInterventions: [...a.manualInterventions],
    lastCompletedPass: a.lastCompletedPass,
    currentToolResults: {},
    recoveredToolResults: { ...a.toolResults },
    recoveredMemory: new Map(a.memory)
  }
}

export const progressOf = (events: ReadonlyArray<RunEvent>, mode: string): Progress => {
  const r = foldEvents(events)
  const a = r.attempt
  return {
    startedAt: r.started?.at ?? 0,
    usage: r.usage,
    simpleRecords: r.simpleRecords,
    escalationContext: r.escalation?.failureSummary.summary,
    attempt: a && {
      firstPass: a.firstPass,
      state: kernelState(a),
      resume: resumePoint(a),
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
    state: kernelState(last.attempt ?? noAttempt(r)),
    nextPass: r.lastPassNumber + 1
  }
}

/** A finished iteration whose attempt left no events (not from a run of this version): nothing planned. */
const noAttempt = (r: RunRecord): AttemptRecord => emptyAttempt(r.lastPassNumber, r.started?.task ?? "")
