import { Either } from "effect"
import type { ConvergenceAssessment, SemanticValidationReport } from "../domain/Evaluation.js"
import { finishStep, type Plan, type PlanStep } from "../domain/Plan.js"
import type { AdaptiveDepthConfiguration, TaskProfile } from "../domain/Profile.js"
import type { PassResult } from "../domain/Result.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { referencesIn, resolveReferences } from "./References.js"
import { countRefinements, emptyLedger, type RefinementLedger } from "./Refinements.js"

type Event<T extends RunEvent["_tag"]> = Extract<RunEvent, { _tag: T }>

/**
 * The attempt in progress — a simple-mode iteration or the multi-pass run — as far as its events go: what a run
 * resumed after a crash continues from.
 */
export interface AttemptRecord {
  readonly firstPass: number
  /** The plan as last stated by an event, and what happened to its steps since. */
  plan: Plan
  /** Steps started and not yet finished or abandoned by an event, with the handoffs each received. */
  readonly started: Map<string, string | undefined>
  readonly finished: Map<string, Event<"StepFinished">>
  readonly abandoned: Map<string, string>
  passNumber: number
  ttlRemaining: number
  /** The TTL at the start of the current execution pass: its evaluation leaves one less. */
  passTtl: number
  profiled?: { readonly profile: TaskProfile; readonly depth: AdaptiveDepthConfiguration } | undefined
  report?: SemanticValidationReport | undefined
  assessment?: ConvergenceAssessment | undefined
  ledger: RefinementLedger
  readonly advisories: Array<string>
  readonly followUpQuestions: Array<string>
  readonly manualInterventions: Array<{ readonly stepId: string; readonly reason: string }>
  lastStarted: number
  lastFinished?: number | undefined
  convergedPass?: number | undefined
  /** The pass whose REFINE applied its refinement: only its end (PassFinished, the profile's revision) was left. */
  refinedPass?: number | undefined
  lastCompletedPass?: PassResult | undefined
  /** Tool outputs of steps not yet finished (a resumed step reuses them), and of the current pass. */
  readonly toolResults: Record<string, unknown>
  passTools: Record<string, unknown>
  /** The last tool output of every step of the attempt (what `{{s1.field}}` in a later tool input reads). */
  readonly toolOutputs: Record<string, unknown>
  /** The run's short-term memory as the tool calls left it (replaced, never changed in place, on a write). */
  memory: ReadonlyMap<string, unknown>
  /**
   * The attempt as it was when its PLAN or EVALUATE phase began, until the pass finishes: a process that stops in
   * such a phase leaves it half done, and the resumed run does the phase again from here (nothing it did counts twice).
   */
  checkpoint?: AttemptRecord | undefined
  /** Steps whose events came since the attempt's plan was last projected: `attemptPlan` projects only those again. */
  readonly touched: Set<string>
}

export const emptyAttempt = (firstPass: number, goal: string): AttemptRecord => ({
  firstPass,
  plan: { goal, steps: [] },
  started: new Map(),
  finished: new Map(),
  abandoned: new Map(),
  passNumber: firstPass,
  ttlRemaining: 0,
  passTtl: 0,
  ledger: emptyLedger,
  advisories: [],
  followUpQuestions: [],
  manualInterventions: [],
  lastStarted: firstPass,
  toolResults: {},
  passTools: {},
  toolOutputs: {},
  memory: new Map(),
  touched: new Set()
})

/** Steps the attempt started that no event finished or abandoned: in flight, or cut off by a stopped process. */
export const inFlightSteps = (a: AttemptRecord): Array<string> =>
  [...a.started.keys()].filter((id) => !a.finished.has(id) && !a.abandoned.has(id))

/**
 * Each planned step as its events left it, remembered while those events are the same: the kernel reads the plan at
 * every step, and projecting every step anew each time made a pass quadratic (a 1,000-step pass spent half its time
 * in finishStep and a quarter collecting its garbage: bench row 7, bench/PeerSizes).
 */
const projections = new WeakMap<PlanStep, {
  readonly context: string | undefined
  readonly finished: Event<"StepFinished"> | undefined
  readonly abandoned: string | undefined
  readonly step: PlanStep
}>()

const projected = (a: AttemptRecord, planned: PlanStep): PlanStep => {
  if (!a.started.has(planned.stepId)) return planned
  const context = a.started.get(planned.stepId)
  const finished = a.finished.get(planned.stepId)
  const abandoned = a.abandoned.get(planned.stepId)
  const known = projections.get(planned)
  if (known && known.context === context && known.finished === finished && known.abandoned === abandoned) {
    return known.step
  }
  const s = context === undefined ? planned : { ...planned, incomingContext: context }
  const step: PlanStep = finished ?
    finishStep(s, finished)
    : abandoned !== undefined ?
    { ...s, status: "failed", executed: true, error: `abandoned: ${abandoned}` }
    : { ...s, status: "running" }
  projections.set(planned, { context, finished, abandoned, step })
  return step
}

/**
 * The input a step's tool call gets: its toolInput with references to earlier results (`{{s1}}`) resolved from the
 * attempt's completed steps and tool outputs, or why one cannot be. What the Executor calls the tool with and what the
 * approval gate judges. A toolInput without references is given as it is (the plan is not projected for it).
 */
export const toolCallInput = (a: AttemptRecord | undefined, step: PlanStep): Either.Either<unknown, string> =>
  a === undefined || referencesIn(step.toolInput).length === 0 ?
    Either.right(step.toolInput)
    : resolveReferences(step.toolInput, attemptPlan(a).steps, a.toolOutputs)

/**
 * An attempt's plan as last projected, for the plan it was projected from, with where each step id sits in it. The
 * kernel reads the plan before every step: projecting only the steps that changed (and a copy) keeps a read about a
 * third of what mapping every step costs on a 100-step plan, and keeps it from growing with the plan (a CPU profile
 * of bench row 6's 100 × 3 loop).
 */
const projectedPlans = new WeakMap<AttemptRecord, {
  readonly source: Plan
  readonly plan: Plan
  readonly positions: ReadonlyMap<string, ReadonlyArray<number>>
}>()

const positionsOf = (steps: ReadonlyArray<PlanStep>) => {
  const positions = new Map<string, Array<number>>()
  steps.forEach((s, i) => positions.set(s.stepId, [...positions.get(s.stepId) ?? [], i]))
  return positions
}

/** The attempt's plan with what happened to its steps applied (started, finished, abandoned). */
/** The planned answer kept on the projected plan. */
const withAnswer = (plan: Plan, planned: Plan): Plan =>
  planned.answer === undefined ? plan : { ...plan, answer: planned.answer }

export const attemptPlan = (a: AttemptRecord): Plan => {
  const last = projectedPlans.get(a)
  if (last && last.source === a.plan && a.touched.size === 0) return last.plan
  let plan: Plan
  if (last && last.source === a.plan) {
    const steps = last.plan.steps.slice()
    for (const id of a.touched) for (const i of last.positions.get(id) ?? []) steps[i] = projected(a, a.plan.steps[i]!)
    plan = withAnswer({ goal: a.plan.goal, steps }, a.plan)
  } else {
    plan = withAnswer({ goal: a.plan.goal, steps: a.plan.steps.map((planned) => projected(a, planned)) }, a.plan)
  }
  a.touched.clear()
  projectedPlans.set(a, {
    source: a.plan,
    plan,
    positions: last && last.source === a.plan ? last.positions : positionsOf(a.plan.steps)
  })
  return plan
}

/** The result of a pass at the end of its EVALUATE phase: completed steps' outputs and the pass's tool results. */
export const passResult = (
  plan: Plan,
  passNumber: number,
  toolResults: Readonly<Record<string, unknown>>,
  abandoned: ReadonlyArray<string> = []
): PassResult => ({
  passNumber,
  stepOutputs: Object.fromEntries(
    plan.steps.filter((s) => s.supersededBy === undefined && s.status === "complete").map((s) => [
      s.stepId,
      s.stepOutput
    ])
  ),
  toolResults,
  ...(abandoned.length > 0 ? { abandonedStepId: abandoned[0], abandonedStepIds: abandoned } : {})
})

/** A copy of the attempt that later events do not change. */
const snapshot = (a: AttemptRecord): AttemptRecord => ({
  ...a,
  started: new Map(a.started),
  finished: new Map(a.finished),
  abandoned: new Map(a.abandoned),
  advisories: [...a.advisories],
  followUpQuestions: [...a.followUpQuestions],
  manualInterventions: [...a.manualInterventions],
  toolResults: { ...a.toolResults },
  passTools: { ...a.passTools },
  toolOutputs: { ...a.toolOutputs },
  checkpoint: undefined,
  touched: new Set(a.touched)
})

/** What of the run's record the attempt's fold reads and replaces (RunRecord has it). */
interface HoldsAttempt {
  attempt?: AttemptRecord | undefined
  readonly started?: { readonly task: string } | undefined
}

/** A restart: a phase cut off half-way starts over from its checkpoint; steps in flight are pending again. */
const resumed = (r: HoldsAttempt, a: AttemptRecord, e: Event<"RunResumed">) => {
  if (a.checkpoint) r.attempt = { ...snapshot(a.checkpoint), checkpoint: a.checkpoint }
  const attempt = r.attempt
  if (attempt === undefined) return
  for (const stepId of e.reopenedStepIds) {
    attempt.started.delete(stepId)
    attempt.touched.add(stepId)
  }
}

const replacePlan = (a: AttemptRecord, plan: Plan) => {
  a.plan = plan
  projectedPlans.delete(a)
  a.started.clear()
  a.finished.clear()
  a.abandoned.clear()
}

/** The attempt in progress: what a resumed run continues from. A PLAN pass (no plan yet) opens one. */
export const applyToAttempt = (r: HoldsAttempt, e: RunEvent) => {
  if (e._tag === "PassStarted" && (!e.plan || !r.attempt)) r.attempt = emptyAttempt(e.passNumber, r.started?.task ?? "")
  const a = r.attempt
  if (!a) return
  switch (e._tag) {
    case "PassStarted":
      a.lastStarted = a.passNumber = e.passNumber
      a.passTools = {}
      if (e.plan) {
        a.ttlRemaining = a.passTtl = e.ttlRemaining
        replacePlan(a, e.plan)
      }
      return
    case "ProfileInferred":
      a.profiled = { profile: e.profile, depth: e.depth }
      // (logs before ttlRemaining was stated: the first profile's allocation)
      if (e.ttlRemaining !== undefined) a.ttlRemaining = e.ttlRemaining
      else if (e.previousVersion === undefined && e.passNumber === a.firstPass) a.ttlRemaining = e.depth.allocatedTtl
      return
    case "PlanCreated":
      return replacePlan(a, e.plan)
    case "RefinementApplied":
      replacePlan(a, e.plan)
      a.refinedPass = e.passNumber
      a.ledger = e.ledger ?? countRefinements(a.ledger, e.actions)
      a.advisories.push(...e.advisories)
      for (const q of e.followUpQuestions ?? []) if (!a.followUpQuestions.includes(q)) a.followUpQuestions.push(q)
      return
    case "StepStarted":
      a.touched.add(e.stepId)
      return void a.started.set(e.stepId, e.incomingContext)
    case "StepFinished":
      a.touched.add(e.stepId)
      a.finished.set(e.stepId, e)
      delete a.toolResults[e.stepId]
      return
    case "StepAbandoned":
      a.touched.add(e.stepId)
      return void a.abandoned.set(e.stepId, e.reason)
    case "ToolInvoked":
      if (e.output !== undefined) a.toolResults[e.stepId] = a.passTools[e.stepId] = a.toolOutputs[e.stepId] = e.output
      if (e.memoryWrites) a.memory = new Map([...a.memory, ...Object.entries(e.memoryWrites)])
      return
    case "ValidationReported":
      a.report = e.report
      return
    case "ConvergenceAssessed":
      // the pass's result as the kernel took it at the end of EVALUATE (what a TTL expiration reports)
      a.assessment = e.assessment
      // evaluating a pass spends a unit of TTL (an evaluation repeated after a restart spends the same one)
      a.ttlRemaining = a.passTtl - 1
      a.lastCompletedPass = passResult(attemptPlan(a), e.passNumber, a.passTools)
      a.convergedPass = e.assessment.converged ? e.passNumber : undefined
      return
    case "ManualInterventionRequired":
      return void a.manualInterventions.push({ stepId: e.stepId, reason: e.reason })
    case "AdvisoryRaised":
      return void a.advisories.push(e.advisory)
    case "RunResumed":
      return resumed(r, a, e)
    case "PhaseEntered":
      a.checkpoint = e.phase === "PLAN" || e.phase === "EVALUATE" ? snapshot(a) : undefined
      return
    case "PassFinished":
      a.lastFinished = e.passNumber
      a.ttlRemaining = e.ttlRemaining
      a.checkpoint = undefined
      return
  }
}
