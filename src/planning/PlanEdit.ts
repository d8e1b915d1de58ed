import { Either, ParseResult, Schema } from "effect"
import { RefinementAction, RefinementActionType } from "../domain/Execution.js"
import type { Plan } from "../domain/Plan.js"
import { applyAction, DepthExceeded } from "../record/PlanEdits.js"
import { checkPlan, type ToolInfo } from "../validation/DeterministicChecks.js"
import { toStep } from "./PlanBuilder.js"

/** A step as a person writes it in an edit: its id may be left out (the target's, or a fresh one for an ADD). */
const EditedStep = Schema.Struct({
  stepId: Schema.optional(Schema.String),
  description: Schema.String.pipe(Schema.minLength(1, { message: () => "newStep.description must not be empty" })),
  tool: Schema.optional(Schema.String),
  toolInput: Schema.optional(Schema.Unknown),
  dependencies: Schema.optional(Schema.Array(Schema.String))
})

/**
 * A person's edit of a plan: one of the planner's refinement actions (ADD, MODIFY, REPLACE, REMOVE, SUBPLAN_CREATE …)
 * in the shape the planner proposes them, the justification optional.
 */
export const PlanEditInput = Schema.Struct({
  actionType: RefinementActionType,
  targetStepId: Schema.optional(Schema.String),
  newStep: Schema.optional(EditedStep),
  subplanGoal: Schema.optional(Schema.String),
  substeps: Schema.optional(Schema.Array(EditedStep)),
  justification: Schema.optional(Schema.String)
})
export type PlanEditInput = typeof PlanEditInput.Encoded

const decodeEdit = Schema.decodeUnknownEither(PlanEditInput)
const decodeAction = Schema.decodeUnknownEither(RefinementAction)
const format = (e: ParseResult.ParseError) => ParseResult.ArrayFormatter.formatErrorSync(e).map((i) => i.message)

const stepOf = (s: typeof EditedStep.Type, id: string, index = 1, total = 1) =>
  toStep({ ...s, stepId: s.stepId?.trim() || id }, index, total)

/** One edit as a refinement action, or why it is not one. */
const actionOf = (raw: unknown, n: number): Either.Either<RefinementAction, string> =>
  Either.flatMap(Either.mapLeft(decodeEdit(raw), (e) => `edit ${n}: ${format(e).join("; ")}`), (edit) => {
    const id = edit.targetStepId ?? `e${n}`
    return Either.mapLeft(
      decodeAction({
        actionType: edit.actionType,
        ...(edit.targetStepId !== undefined ? { targetStepId: edit.targetStepId } : {}),
        ...(edit.newStep ? { newStep: stepOf(edit.newStep, edit.actionType === "ADD" ? `e${n}` : id) } : {}),
        ...(edit.subplanGoal !== undefined ? { subplanGoal: edit.subplanGoal } : {}),
        ...(edit.substeps
          ? { substeps: edit.substeps.map((s, i) => stepOf(s, `${id}.${i + 1}`, i + 1, edit.substeps!.length)) }
          : {}),
        justification: edit.justification?.trim() || "edited by a person"
      }),
      (e) => `edit ${n} (${edit.actionType}): ${format(e).join("; ")}`
    )
  })

/**
 * A person's edits applied to a plan as the planner's own refinements are (record/PlanEdits.applyAction: an executed
 * step is superseded, never rewritten), each checked as the planner's are (RecursivePlanner.applyChecked: the nesting
 * depth, and no HIGH or CRITICAL deterministic issue on the steps it touches). All or nothing: the first edit refused
 * says why, and the plan is left as it was.
 */
export const editPlan = (
  plan: Plan,
  edits: ReadonlyArray<unknown>,
  tools: ReadonlyArray<ToolInfo>
): Either.Either<{ readonly plan: Plan; readonly actions: ReadonlyArray<RefinementAction> }, string> => {
  if (edits.length === 0) return Either.left("no edit given")
  let current = plan
  const actions: Array<RefinementAction> = []
  for (const [i, raw] of edits.entries()) {
    const action = actionOf(raw, i + 1)
    if (Either.isLeft(action)) return Either.left(action.left)
    const edit = applyAction(current, action.right)
    if (edit instanceof DepthExceeded) {
      return Either.left(`edit ${i + 1}: a subplan on ${edit.stepId} would nest ${edit.depth} levels deep (at most 5)`)
    }
    if (Either.isLeft(edit)) return Either.left(`edit ${i + 1}: ${edit.left}`)
    const blocking = checkPlan(edit.right.plan, tools).filter((issue) =>
      edit.right.touched.includes(issue.location?.stepId ?? "") &&
      (issue.severity === "HIGH" || issue.severity === "CRITICAL")
    )
    if (blocking.length > 0) {
      return Either.left(
        `edit ${i + 1} (${action.right.actionType}) fails validation: ${blocking.map((b) => b.description).join("; ")}`
      )
    }
    current = edit.right.plan
    actions.push(action.right)
  }
  return Either.right({ plan: current, actions })
}
