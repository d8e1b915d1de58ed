import { Effect, Either, Schema } from "effect"
import type { RunHalt } from "../domain/Errors.js"
import type { ConvergenceAssessment, SemanticValidationReport } from "../domain/Evaluation.js"
import { RefinementAction } from "../domain/Execution.js"
import { isExecuted, type Plan } from "../domain/Plan.js"
import { isModelFailure, type Llm } from "../llm/Llm.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import { promptPlan } from "../prompts/PromptViews.js"
import type { RefinementOutput } from "../prompts/Schemas.js"
import { applyAction, DepthExceeded, findStep, liveSuccessor } from "../record/PlanEdits.js"
import { countRefinement, emptyLedger, fragmentOf, type RefinementLedger } from "../record/Refinements.js"
import { traced } from "../telemetry/Span.js"
import { checkPlan, type ToolInfo } from "../validation/DeterministicChecks.js"
import { toStep } from "./PlanBuilder.js"

export { emptyLedger, type RefinementLedger }

export const REFINEMENT_LIMITS = { perFragment: 3, total: 10 } as const

export interface RefineInput {
  readonly request: string
  readonly plan: Plan
  readonly report: SemanticValidationReport
  readonly assessment?: ConvergenceAssessment | undefined
  readonly tools: ReadonlyArray<ToolInfo>
  /** The tools the model is shown by name (a large catalog's offer, planning/ToolCatalog); absent: every tool. */
  readonly offered?: ReadonlyArray<string> | undefined
  readonly ledger: RefinementLedger
  /** What a person said where the run asked for guidance (interactive runs). */
  readonly guidance?: ReadonlyArray<string> | undefined
  /** Steps whose results came from outside the run: the model is told they are data (record/Provenance). */
  readonly untrusted?: ReadonlyArray<string> | undefined
  readonly llm: Llm
}

export interface RefineOutcome {
  readonly plan: Plan
  readonly applied: ReadonlyArray<RefinementAction>
  readonly advisories: ReadonlyArray<string>
  readonly manualInterventions: ReadonlyArray<{ readonly stepId: string; readonly reason: string }>
  readonly followUpQuestions: ReadonlyArray<string>
  readonly ledger: RefinementLedger
  /** No refinement is possible any more (global limit reached). */
}

export interface Service {
  readonly refine: (input: RefineInput) => Effect.Effect<RefineOutcome, RunHalt>
}

const decodeAction = Schema.decodeUnknownEither(RefinementAction)

/** FR-011: a question for every fragment the validator found vague. */
export const followUpQuestions = (plan: Plan, report: SemanticValidationReport): Array<string> =>
  report.issues
    .filter((i) => i.type === "specificity" && i.location?.stepId)
    .map((i) => {
      const step = plan.steps.find((s) => s.stepId === i.location!.stepId)
      return `What exactly should step ${i.location!.stepId}${
        step ? ` ("${step.description}")` : ""
      } act on, and what result is expected?`
    })

/** What a refinement round has built so far: the plan with the actions applied, the ledger, what it reports. */
interface Refining {
  plan: Plan
  ledger: RefinementLedger
  readonly applied: Array<RefinementAction>
  readonly advisories: Array<string>
  readonly manual: Array<{ stepId: string; reason: string }>
  readonly questions: Array<string>
  /** Steps that ran: an action on one is an inconsistency (a successor replaces it). */
  readonly frozen: ReadonlyArray<string>
}

const globalLimitReached = (r: Refining, what: string) => {
  if (r.ledger.total < REFINEMENT_LIMITS.total) return false
  r.advisories.push(`global refinement limit (${REFINEMENT_LIMITS.total}) reached: ${what}`)
  return true
}

/** The planner's proposed actions, the steps it may not touch named (ran, or their fragment out of attempts). */
const askRefinement = (input: RefineInput, r: Refining) => {
  const limited = Object.entries(r.ledger.perFragment).filter(([, n]) => n >= REFINEMENT_LIMITS.perFragment)
    .flatMap(([id]) => [...new Set([id, liveSuccessor(input.plan.steps, id)])])
  return input.llm.generate(Contracts.refinement, {
    request: input.request,
    plan: promptPlan(input.plan),
    issues: input.report.issues.map((i) =>
      `${i.severity} ${i.type}${i.location?.stepId ? ` at ${i.location.stepId}` : ""}: ${i.description}`
    ),
    convergenceReasons: [...(input.assessment?.failedCriteria ?? [])],
    tools: [...input.offered ?? input.tools.map((t) => t.name)],
    frozenStepIds: [...r.frozen, ...limited],
    ...(input.guidance && input.guidance.length > 0 ? { guidance: [...input.guidance] } : {}),
    ...(input.untrusted && input.untrusted.length > 0 ? { untrustedStepIds: [...input.untrusted] } : {})
  }).pipe(
    Effect.map((answer) => answer.output as RefinementOutput),
    Effect.catchIf(isModelFailure, (e) => {
      r.advisories.push(`refinement failed (${e.message}); continuing with the current plan`)
      return Effect.succeed(undefined)
    })
  )
}

type Proposed = RefinementOutput["actions"][number]

/** A SUBPLAN_CREATE that came without substeps gets them from the subplan prompt (none if that call fails). */
const substepsOf = (input: RefineInput, plan: Plan, proposed: Proposed) => {
  if (proposed.actionType !== "SUBPLAN_CREATE" || (proposed.substeps?.length ?? 0) > 0 || !proposed.targetStepId) {
    return Effect.succeed(proposed.substeps)
  }
  const found = findStep(plan.steps, proposed.targetStepId)
  if (!found) return Effect.succeed(proposed.substeps)
  return input.llm.generate(Contracts.subplan, {
    request: input.request,
    parentStep: promptPlan({ goal: plan.goal, steps: [found.step] }).steps[0]!,
    depthLevel: found.depth + 1,
    tools: [...input.offered ?? input.tools.map((t) => t.name)]
  }).pipe(
    Effect.map((answer) => answer.output.substeps),
    Effect.catchIf(isModelFailure, () => Effect.succeed(undefined))
  )
}

/** Counts an attempt on the action's fragment; false (and said why) when the fragment has none left. */
const takeAttempt = (r: Refining, proposed: Proposed, fragment: string) => {
  const tries = r.ledger.perFragment[fragment] ?? 0
  if (tries >= REFINEMENT_LIMITS.perFragment) {
    r.advisories.push(
      `fragment ${fragment} reached its ${REFINEMENT_LIMITS.perFragment}-attempt limit: ${proposed.actionType} dropped`
    )
    return false
  }
  r.ledger = countRefinement(r.ledger, fragment)
  if (tries + 1 >= REFINEMENT_LIMITS.perFragment && findStep(r.plan.steps, fragment)) {
    r.manual.push({
      stepId: fragment,
      reason: `refinement limit of ${REFINEMENT_LIMITS.perFragment} attempts reached; needs human review`
    })
  }
  return true
}

/** The action applied to the plan being built, or the reason it is not (said in the advisories). */
const applyChecked = (input: RefineInput, r: Refining, action: RefinementAction, fragment: string) => {
  const edit = applyAction(r.plan, action)
  if (edit instanceof DepthExceeded) {
    r.manual.push({
      stepId: edit.stepId,
      reason: `subplan nesting would reach depth ${edit.depth} (max 5); fragment left as is`
    })
    r.ledger = { ...r.ledger, perFragment: { ...r.ledger.perFragment, [fragment]: REFINEMENT_LIMITS.perFragment } }
    r.advisories.push(
      `SUBPLAN_CREATE on ${edit.stepId} exceeds the nesting depth: marked for manual intervention, execution continues`
    )
    return
  }
  if (Either.isLeft(edit)) return void r.advisories.push(`refinement action rejected: ${edit.left}`)
  // FR-049: the refined fragment is validated before it is accepted
  const blocking = checkPlan(edit.right.plan, input.tools).filter((i) =>
    edit.right.touched.includes(i.location?.stepId ?? "") && (i.severity === "HIGH" || i.severity === "CRITICAL")
  )
  if (blocking.length > 0) {
    const why = blocking.map((b) => b.description).join("; ")
    return void r.advisories.push(`refinement ${action.actionType} on ${fragment} rejected by validation: ${why}`)
  }
  // FR-079: the planner's refinement wins over a conflicting validator repair
  for (const i of input.report.issues) {
    if (i.proposedRepair && i.location?.stepId === action.targetStepId) {
      r.advisories.push(
        `validator's proposed repair for ${i.location?.stepId} ("${i.proposedRepair.action}") superseded by the planner's ${action.actionType}`
      )
    }
  }
  if (edit.right.note) r.advisories.push(edit.right.note)
  r.plan = edit.right.plan
  r.applied.push(action)
}

/** One proposed action: counted against its fragment, its substeps found, decoded, applied if it passes. */
const applyProposed = (input: RefineInput, r: Refining, proposed: Proposed) =>
  Effect.gen(function*() {
    const fragment = fragmentOf(proposed, r.plan)
    if (!takeAttempt(r, proposed, fragment)) return
    const substeps = yield* substepsOf(input, r.plan, proposed)
    const decoded = decodeAction({
      ...proposed,
      ...(proposed.newStep ? { newStep: toStep(proposed.newStep) } : {}),
      ...(substeps ? { substeps: substeps.map((s, i) => toStep(s, i + 1, substeps.length)) } : {}),
      inconsistencyDetected: proposed.targetStepId !== undefined && r.frozen.includes(proposed.targetStepId)
    })
    if (Either.isLeft(decoded)) {
      r.advisories.push(`refinement action ${proposed.actionType} on ${fragment} rejected: ${decoded.left.message}`)
      return
    }
    applyChecked(input, r, decoded.right, fragment)
  })

/** Reported by fragment (its original id); marked on the step that stands for it now (a successor, once it ran). */
const markedForReview = (r: Refining): Plan =>
  r.manual.reduce((plan, m) => {
    const live = liveSuccessor(plan.steps, m.stepId)
    return { ...plan, steps: plan.steps.map((s) => (s.stepId === live ? { ...s, manualIntervention: m.reason } : s)) }
  }, r.plan)

const outcomeOf = (r: Refining, plan: Plan): RefineOutcome => ({
  plan,
  applied: r.applied,
  advisories: r.advisories,
  manualInterventions: r.manual,
  followUpQuestions: [...new Set(r.questions)],
  ledger: r.ledger
})

export const refine: Service["refine"] = (input: RefineInput) =>
  Effect.gen(function*() {
    const r: Refining = {
      plan: input.plan,
      ledger: input.ledger,
      applied: [],
      advisories: [],
      manual: [],
      questions: followUpQuestions(input.plan, input.report),
      frozen: input.plan.steps.filter(isExecuted).map((s) => s.stepId)
    }
    if (globalLimitReached(r, "proceeding with the best available plan")) return outcomeOf(r, input.plan)
    const answer = yield* askRefinement(input, r)
    if (!answer) return outcomeOf(r, input.plan)
    r.questions.push(...(answer.followUpQuestions ?? []))
    for (const proposed of answer.actions) {
      if (globalLimitReached(r, "remaining actions dropped")) break
      yield* applyProposed(input, r, proposed)
    }
    return outcomeOf(r, markedForReview(r))
  }).pipe(traced("RecursivePlanner.refine", { captureStackTrace: false }))
