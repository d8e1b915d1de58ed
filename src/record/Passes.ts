/**
 * The passes of a run as its events tell them: each pass's phases, plan, steps' results, validation, convergence,
 * refinements and advisories with their times; the profile and the plans stated so far. Part of the run's one fold
 * (record/RunRecord's applyEvent calls it).
 */
import type { ConvergenceAssessment, SemanticValidationReport } from "../domain/Evaluation.js"
import type { Phase, RefinementAction } from "../domain/Execution.js"
import type { Plan } from "../domain/Plan.js"
import type { AdaptiveDepthConfiguration, TaskProfile } from "../domain/Profile.js"
import type { RunEvent } from "../domain/RunEvent.js"

type Event<T extends RunEvent["_tag"]> = Extract<RunEvent, { _tag: T }>

/** One pass as the events tell it (the ExecutionPass of the history is projected from it). */
export interface PassRecord {
  readonly passNumber: number
  readonly phases: Array<Phase>
  plan?: Plan
  readonly executionResults: Record<
    string,
    { stepOutput: string; clarityState?: string; status: string; toolResult?: unknown; error?: string }
  >
  validationReport?: SemanticValidationReport
  convergence?: ConvergenceAssessment
  readonly refinementChanges: Array<RefinementAction>
  readonly advisories: Array<string>
  readonly ttlRemaining: number
  profile?: TaskProfile
  depth?: AdaptiveDepthConfiguration
  readonly start: number
  end?: number
  /** Each phase entered and each step started in the pass, with their times (the timeline). */
  readonly phaseSpans: Array<PhaseSpan>
  readonly stepSpans: Array<StepSpan>
}

export interface PhaseSpan {
  readonly phase: Phase
  readonly start: number
  /** The event that began it (PhaseEntered). */
  readonly seq: number
  end?: number | undefined
}
export interface StepSpan {
  readonly stepId: string
  readonly start: number
  /** The event that began it (StepStarted). */
  readonly seq: number
  end?: number | undefined
  status?: string | undefined
}

/** What of the run's record the passes' fold reads and writes (RunRecord has it). */
export interface HoldsPasses {
  readonly passes: Array<PassRecord>
  current?: PassRecord | undefined
  profile?: TaskProfile | undefined
  depth?: AdaptiveDepthConfiguration | undefined
  /** The plan last stated by PlanCreated or RefinementApplied. */
  lastPlan?: Plan | undefined
  /** The highest pass number seen: the next attempt starts after it. */
  lastPassNumber: number
  /** Each step's description, by its id, as the plans stated it. */
  readonly descriptions: Map<string, string>
}

const rememberDescriptions = (r: HoldsPasses, plan: Plan) => {
  for (const s of plan.steps) r.descriptions.set(s.stepId, s.description)
}

const passOpened = (r: HoldsPasses, e: Event<"PassStarted">): PassRecord => ({
  passNumber: e.passNumber,
  phases: [],
  executionResults: {},
  refinementChanges: [],
  advisories: [],
  ttlRemaining: e.ttlRemaining,
  start: e.at,
  phaseSpans: [],
  stepSpans: [],
  ...(e.plan ? { plan: e.plan } : {}),
  ...(r.profile ? { profile: r.profile } : {}),
  ...(r.depth ? { depth: r.depth } : {})
})

/** A step's line in its pass's execution results. */
const stepResult = (p: PassRecord, e: Event<"StepFinished" | "StepAbandoned" | "ToolInvoked">) => {
  const before = p.executionResults[e.stepId]
  p.executionResults[e.stepId] = e._tag === "StepFinished"
    ? {
      ...before,
      stepOutput: e.stepOutput,
      status: e.status,
      ...(e.clarityState ? { clarityState: e.clarityState } : {}),
      ...(e.error ? { error: e.error } : {})
    }
    : e._tag === "StepAbandoned"
    ? { ...before, stepOutput: "", status: "abandoned", error: e.reason }
    : {
      stepOutput: "",
      status: "running",
      ...before,
      toolResult: e.output !== undefined ? e.output : { error: e.error }
    }
}

const closePhase = (p: PassRecord, at: number) => {
  const open = p.phaseSpans.at(-1)
  if (open && open.end === undefined) open.end = at
}

const closeStep = (p: PassRecord, e: Event<"StepFinished" | "StepAbandoned">) => {
  const span = p.stepSpans.findLast((s) => s.stepId === e.stepId && s.end === undefined)
  if (!span) return
  span.end = e.at
  span.status = e._tag === "StepAbandoned" ? "abandoned" : e.status
}

/** The passes of the history, the profile, and the plans stated so far. */
export const applyToPasses = (r: HoldsPasses, e: RunEvent) => {
  const p = r.current
  switch (e._tag) {
    case "PassStarted":
      r.current = passOpened(r, e)
      r.passes.push(r.current)
      r.lastPassNumber = Math.max(r.lastPassNumber, e.passNumber)
      if (e.plan) rememberDescriptions(r, e.plan)
      return
    case "PhaseEntered":
      if (!p) return
      closePhase(p, e.at)
      p.phaseSpans.push({ phase: e.phase, start: e.at, seq: e.seq })
      return void p.phases.push(e.phase)
    case "StepStarted":
      return void p?.stepSpans.push({ stepId: e.stepId, start: e.at, seq: e.seq })
    case "ProfileInferred":
      r.profile = e.profile
      r.depth = e.depth
      if (p) Object.assign(p, { profile: e.profile, depth: e.depth })
      return
    case "PlanCreated":
    case "RefinementApplied":
      if (p && p.passNumber === 0) p.plan = e.plan
      if (p && e._tag === "RefinementApplied") {
        p.refinementChanges.push(...e.actions)
        p.advisories.push(...e.advisories)
      }
      r.lastPlan = e.plan
      return rememberDescriptions(r, e.plan)
    case "StepFinished":
    case "StepAbandoned":
      if (p) closeStep(p, e)
      if (p) stepResult(p, e)
      return
    case "ToolInvoked":
      if (p) stepResult(p, e)
      return
    case "ValidationReported":
      if (p) p.validationReport = e.report
      return
    case "ConvergenceAssessed":
      if (p) p.convergence = e.assessment
      return
    case "ManualInterventionRequired":
      return void p?.advisories.push(`manual intervention required for ${e.stepId}: ${e.reason}`)
    case "AdvisoryRaised":
      return void p?.advisories.push(e.advisory)
    case "PassFinished":
      if (p) closePhase(p, e.at)
      if (p) p.end = e.at
      r.current = undefined
      return
    case "RunFinished":
      for (const pass of r.passes) closePhase(pass, e.at)
      return
  }
}
