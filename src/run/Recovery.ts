import type { Usage } from "../domain/Budget.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { SimpleIterationRecord } from "../domain/SimpleMode.js"
import type { ResumePoint } from "../kernel/Orchestrator.js"
import type { RunState } from "../kernel/RunContext.js"
import { attemptPlan, type AttemptRecord, foldEvents } from "./RunRecord.js"

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
    nextPass: r.lastPassNumber + 1
  }
}
