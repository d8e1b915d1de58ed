import { Context, Effect, Either, Layer, Schema } from "effect"
import type { BudgetExhaustedError } from "../domain/Errors.js"
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
  readonly ledger: RefinementLedger
  /** What a person said where the run asked for guidance (interactive runs). */
  readonly guidance?: ReadonlyArray<string> | undefined
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
  readonly refine: (input: RefineInput) => Effect.Effect<RefineOutcome, BudgetExhaustedError>
}

export class RecursivePlanner extends Context.Tag("aeon/RecursivePlanner")<RecursivePlanner, Service>() {}

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

const refine = (input: RefineInput) =>
  Effect.gen(function*() {
    const advisories: Array<string> = []
    const manual: Array<{ stepId: string; reason: string }> = []
    const questions = followUpQuestions(input.plan, input.report)
    const unchanged = (): RefineOutcome => ({
      plan: input.plan,
      applied: [],
      advisories,
      manualInterventions: manual,
      followUpQuestions: questions,
      ledger: input.ledger
    })
    if (input.ledger.total >= REFINEMENT_LIMITS.total) {
      advisories.push(
        `global refinement limit (${REFINEMENT_LIMITS.total}) reached: proceeding with the best available plan (FR-066)`
      )
      return unchanged()
    }
    const frozen = input.plan.steps.filter(isExecuted).map((s) => s.stepId)
    // a fragment out of attempts, by its original id and the id that stands for it now
    const limited = Object.entries(input.ledger.perFragment).filter(([, n]) => n >= REFINEMENT_LIMITS.perFragment)
      .flatMap(([id]) => [...new Set([id, liveSuccessor(input.plan.steps, id)])])
    const answer = yield* input.llm.generate(Contracts.refinement, {
      request: input.request,
      plan: promptPlan(input.plan),
      issues: input.report.issues.map((i) =>
        `${i.severity} ${i.type}${i.location?.stepId ? ` at ${i.location.stepId}` : ""}: ${i.description}`
      ),
      convergenceReasons: [...(input.assessment?.failedCriteria ?? [])],
      tools: input.tools.map((t) => t.name),
      frozenStepIds: [...frozen, ...limited],
      ...(input.guidance && input.guidance.length > 0 ? { guidance: [...input.guidance] } : {})
    }).pipe(
      Effect.map((r) => r.output as RefinementOutput),
      Effect.catchIf(isModelFailure, (e) => {
        advisories.push(`refinement failed (${e._tag}: ${e.message}); continuing with the current plan (FR-067)`)
        return Effect.succeed(undefined)
      })
    )
    if (!answer) return unchanged()
    questions.push(...(answer.followUpQuestions ?? []))

    let plan = input.plan
    let ledger = input.ledger
    const applied: Array<RefinementAction> = []
    for (const proposed of answer.actions) {
      if (ledger.total >= REFINEMENT_LIMITS.total) {
        advisories.push(
          `global refinement limit (${REFINEMENT_LIMITS.total}) reached: remaining actions dropped (FR-066)`
        )
        break
      }
      const fragment = fragmentOf(proposed, plan)
      const tries = ledger.perFragment[fragment] ?? 0
      if (tries >= REFINEMENT_LIMITS.perFragment) {
        advisories.push(
          `fragment ${fragment} reached its ${REFINEMENT_LIMITS.perFragment}-attempt limit: ${proposed.actionType} dropped (FR-065)`
        )
        continue
      }
      ledger = countRefinement(ledger, fragment)
      if (tries + 1 >= REFINEMENT_LIMITS.perFragment && findStep(plan.steps, fragment)) {
        manual.push({
          stepId: fragment,
          reason: `refinement limit of ${REFINEMENT_LIMITS.perFragment} attempts reached; needs human review`
        })
      }
      let substeps = proposed.substeps
      if (proposed.actionType === "SUBPLAN_CREATE" && (!substeps || substeps.length === 0) && proposed.targetStepId) {
        const found = findStep(plan.steps, proposed.targetStepId)
        if (found) {
          const sub = yield* input.llm.generate(Contracts.subplan, {
            request: input.request,
            parentStep: promptPlan({ goal: plan.goal, steps: [found.step] }).steps[0]!,
            depthLevel: found.depth + 1,
            tools: input.tools.map((t) => t.name)
          }).pipe(
            Effect.map((r) => r.output),
            Effect.catchIf(isModelFailure, () => Effect.succeed(undefined))
          )
          substeps = sub?.substeps
        }
      }
      const decoded = decodeAction({
        ...proposed,
        ...(proposed.newStep ? { newStep: toStep(proposed.newStep) } : {}),
        ...(substeps ? { substeps: substeps.map((s, i) => toStep(s, i + 1, substeps!.length)) } : {}),
        inconsistencyDetected: proposed.targetStepId !== undefined && frozen.includes(proposed.targetStepId)
      })
      if (Either.isLeft(decoded)) {
        advisories.push(`refinement action ${proposed.actionType} on ${fragment} rejected: ${decoded.left.message}`)
        continue
      }
      const action = decoded.right
      const edit = applyAction(plan, action)
      if (edit instanceof DepthExceeded) {
        manual.push({
          stepId: edit.stepId,
          reason: `subplan nesting would reach depth ${edit.depth} (max 5); fragment left as is (FR-082)`
        })
        ledger = { ...ledger, perFragment: { ...ledger.perFragment, [fragment]: REFINEMENT_LIMITS.perFragment } }
        advisories.push(
          `SUBPLAN_CREATE on ${edit.stepId} exceeds the nesting depth: marked for manual intervention, execution continues`
        )
        continue
      }
      if (Either.isLeft(edit)) {
        advisories.push(`refinement action rejected: ${edit.left}`)
        continue
      }
      // FR-049: the refined fragment is validated before it is accepted
      const blocking = checkPlan(edit.right.plan, input.tools).filter((i) =>
        edit.right.touched.includes(i.location?.stepId ?? "") && (i.severity === "HIGH" || i.severity === "CRITICAL")
      )
      if (blocking.length > 0) {
        advisories.push(`refinement ${action.actionType} on ${fragment} rejected by validation: ${
          blocking.map((b) => b.description).join("; ")
        }`)
        continue
      }
      // FR-079: the planner's refinement wins over a conflicting validator repair
      for (const i of input.report.issues) {
        if (i.proposedRepair && i.location?.stepId === action.targetStepId) {
          advisories.push(
            `validator's proposed repair for ${i.location?.stepId} ("${i.proposedRepair.action}") superseded by the planner's ${action.actionType}`
          )
        }
      }
      if (edit.right.note) {
        advisories.push(edit.right.note)
      }
      plan = edit.right.plan
      applied.push(action)
    }
    // reported by fragment (its original id); marked on the step that stands for it now (a successor, once it ran)
    for (const m of manual) {
      const live = liveSuccessor(plan.steps, m.stepId)
      plan = {
        ...plan,
        steps: plan.steps.map((s) => (s.stepId === live ? { ...s, manualIntervention: m.reason } : s))
      }
    }
    return {
      plan,
      applied,
      advisories,
      manualInterventions: manual,
      followUpQuestions: [...new Set(questions)],
      ledger
    } satisfies RefineOutcome
  }).pipe(traced("RecursivePlanner.refine", { captureStackTrace: false }))

export const make: Service = { refine }

export const layer = Layer.succeed(RecursivePlanner, make)
