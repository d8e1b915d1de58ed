import { emptyUsage, type Usage } from "../domain/Budget.js"
import type { Plan, PlanStep } from "../domain/Plan.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { SimpleIterationRecord } from "../domain/SimpleMode.js"
import { passResult, type ResumePoint } from "../kernel/Orchestrator.js"
import type { RunState } from "../kernel/RunContext.js"
import type { RefinementLedger } from "../planning/RecursivePlanner.js"

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

const applyFinished = (step: PlanStep, e: Extract<RunEvent, { _tag: "StepFinished" }>): PlanStep => ({
  ...step,
  status: e.status,
  stepOutput: e.stepOutput,
  handoffToNext: e.handoffToNext,
  executed: true,
  ...(e.clarityState ? { clarityState: e.clarityState as PlanStep["clarityState"] } : {}),
  ...(e.error ? { error: e.error } : {})
})

const withFinished = (
  plan: Plan,
  finished: ReadonlyMap<string, Extract<RunEvent, { _tag: "StepFinished" }>>
): Plan => ({
  goal: plan.goal,
  steps: plan.steps.map((s) => {
    const f = finished.get(s.stepId)
    return f ? applyFinished(s, f) : s
  })
})

/** The kernel's state at the crash: completed steps stay completed, a step cut off mid-way runs again (its finished tool call does not). */
export const rebuildState = (
  attempt: ReadonlyArray<RunEvent>,
  request: string,
  firstPass: number
): { state: RunState; resume: ResumePoint } => {
  let plan: Plan = { goal: request, steps: [] }
  const finished = new Map<string, Extract<RunEvent, { _tag: "StepFinished" }>>()
  const tools: Record<string, unknown> = {}
  const memory = new Map<string, unknown>()
  let state: RunState = {
    plan,
    passNumber: firstPass,
    ttlRemaining: 0,
    ledger: { perFragment: {}, total: 0 },
    advisories: [],
    followUpQuestions: [],
    manualInterventions: [],
    currentToolResults: {}
  }
  let lastStarted = firstPass
  let lastFinished: number | undefined
  let convergedPass: number | undefined
  let passTools: Record<string, unknown> = {}
  const perFragment: Record<string, number> = {}
  let total = 0
  for (const e of attempt) {
    switch (e._tag) {
      case "PassStarted":
        lastStarted = e.passNumber
        state = { ...state, passNumber: e.passNumber, ...(e.plan ? { ttlRemaining: e.ttlRemaining } : {}) }
        if (e.plan) {
          plan = e.plan
          finished.clear()
        }
        passTools = {}
        break
      case "PlanCreated":
      case "RefinementApplied":
        plan = e.plan
        finished.clear()
        if (e._tag === "RefinementApplied") {
          for (const a of e.actions) {
            const f = a.targetStepId ?? a.newStep?.stepId ?? "plan"
            perFragment[f] = (perFragment[f] ?? 0) + 1
            total++
          }
          state = { ...state, advisories: [...state.advisories, ...e.advisories] }
        }
        break
      case "ProfileInferred":
        state = {
          ...state,
          profiled: { profile: e.profile, depth: e.depth, advisories: [] },
          ...(e.previousVersion === undefined && e.passNumber === firstPass
            ? { ttlRemaining: e.depth.allocatedTtl }
            : {})
        }
        break
      case "StepFinished":
        finished.set(e.stepId, e)
        delete tools[e.stepId]
        break
      case "ToolInvoked":
        if (e.output !== undefined) tools[e.stepId] = passTools[e.stepId] = e.output
        for (const [key, value] of Object.entries(e.memoryWrites ?? {})) memory.set(key, value)
        break
      case "ValidationReported":
        state = { ...state, report: e.report }
        break
      case "ConvergenceAssessed":
        // the pass's result as the kernel took it at the end of EVALUATE (what a TTL expiration reports)
        state = {
          ...state,
          assessment: e.assessment,
          lastCompletedPass: passResult(withFinished(plan, finished), e.passNumber, passTools)
        }
        convergedPass = e.assessment.converged ? e.passNumber : undefined
        break
      case "ManualInterventionRequired":
        state = {
          ...state,
          manualInterventions: [...state.manualInterventions, { stepId: e.stepId, reason: e.reason }]
        }
        break
      case "PassFinished":
        lastFinished = e.passNumber
        state = { ...state, ttlRemaining: e.ttlRemaining }
        break
    }
  }
  const steps = withFinished(plan, finished).steps.map((s) =>
    s.status === "running" ? { ...s, status: "pending" as const } : s
  )
  const ledger: RefinementLedger = { perFragment, total }
  // a pass that converged and finished: only the answer was left to make (Phase E), and it is made again
  const resume: ResumePoint = lastFinished === undefined
    ? { stage: "plan" }
    : lastFinished === lastStarted && convergedPass === lastFinished
    ? { stage: "converged" }
    : lastFinished === lastStarted
    ? { stage: "boundary", nextPass: lastFinished + 1 }
    : { stage: "execute", passNumber: lastStarted }
  return {
    state: { ...state, plan: { goal: plan.goal, steps }, ledger, recoveredToolResults: tools, recoveredMemory: memory },
    resume
  }
}

export const progressOf = (events: ReadonlyArray<RunEvent>, request: string, mode: string): Progress => {
  const started = events.find((e) => e._tag === "RunStarted")
  const usage = events.reduce<Usage>((u, e) =>
    e._tag === "LlmCalled" ?
      {
        ...u,
        inputTokens: u.inputTokens + e.inputTokens,
        outputTokens: u.outputTokens + e.outputTokens,
        costUsd: u.costUsd + e.costUsd,
        llmCalls: u.llmCalls + 1
      }
      : e._tag === "StepStarted" ?
      { ...u, steps: u.steps + 1 }
      : u, emptyUsage)
  const simpleRecords = events.flatMap((e) => (e._tag === "SimpleIterationFinished" ? [e.record] : []))
  const escalated = events.find((e): e is Extract<RunEvent, { _tag: "Escalated" }> => e._tag === "Escalated")
  // the attempt in progress begins at the last PLAN pass start after the last completed iteration or escalation
  const boundary = Math.max(
    events.findLastIndex((e) => e._tag === "SimpleIterationFinished" || e._tag === "Escalated"),
    0
  )
  const planStart = events.findIndex((e, i) => i > boundary && e._tag === "PassStarted" && !e.plan)
  const lastPass = events.reduce((n, e) => (e._tag === "PassStarted" ? Math.max(n, e.passNumber) : n), -1)
  const attempt = planStart < 0 ? undefined : (() => {
    const firstPass = (events[planStart] as Extract<RunEvent, { _tag: "PassStarted" }>).passNumber
    return {
      firstPass,
      ...rebuildState(events.slice(planStart), request, firstPass),
      singlePass: mode !== "FULL" && !escalated
    }
  })()
  return {
    startedAt: started?.at ?? 0,
    usage,
    simpleRecords,
    escalationContext: escalated?.escalation.failureSummary.summary,
    attempt,
    nextPass: lastPass + 1
  }
}
