import { Either, Schema } from "effect"
import { extend } from "../support/Extend.js"

export const ClarityState = Schema.Literal("CLEAR", "PARTIALLY_CLEAR", "BLOCKED")
export type ClarityState = typeof ClarityState.Type
const isClarityState = Schema.is(ClarityState)

export const StepStatus = Schema.Literal("pending", "running", "complete", "failed", "invalid")
export type StepStatus = typeof StepStatus.Type

const NonEmpty = (what: string) =>
  Schema.String.pipe(Schema.filter((s) => s.trim().length > 0 || `${what} must be a non-empty string`))

export interface PlanStep {
  readonly stepId: string
  readonly stepIndex: number
  readonly totalSteps: number
  readonly description: string
  readonly tool?: string | undefined
  readonly toolInput?: unknown
  readonly dependencies: ReadonlyArray<string>
  readonly provides: ReadonlyArray<string>
  /**
   * A step that needs no tool, answered by the planner as it planned (a fact it knows): in a simple iteration this is
   * its output, with no reasoning call (FULL asks the model all the same).
   */
  readonly answer?: string | undefined
  readonly incomingContext: string
  readonly handoffToNext: string
  readonly clarityState?: ClarityState | undefined
  readonly stepOutput: string
  readonly status: StepStatus
  readonly error?: string | undefined
  /** Set once the step has run at least once; an executed step is never rewritten. */
  readonly executed?: boolean | undefined
  /** Set when refinement replaced this executed step by a new one; the executed step itself is kept unchanged. */
  readonly supersededBy?: string | undefined
  /** Set when the fragment hit a refinement limit or the nesting depth: it needs a human. */
  readonly manualIntervention?: string | undefined
  readonly subplan?: Subplan | undefined
}

export interface Subplan {
  readonly parentStepId: string
  readonly subplanGoal: string
  readonly substeps: ReadonlyArray<PlanStep>
  readonly depthLevel: number
  readonly createdBy: string
}

const PlanStepFields = Schema.Struct({
  stepId: NonEmpty("stepId"),
  stepIndex: Schema.Int.pipe(Schema.filter((n) => n >= 1 || "stepIndex must be >= 1 (1-based)")),
  totalSteps: Schema.Int.pipe(Schema.filter((n) => n >= 1 || "totalSteps must be >= 1")),
  description: NonEmpty("description"),
  tool: Schema.optional(Schema.String),
  toolInput: Schema.optional(Schema.Unknown),
  dependencies: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  provides: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  answer: Schema.optional(Schema.String),
  incomingContext: Schema.optionalWith(Schema.String, { default: () => "" }),
  handoffToNext: Schema.optionalWith(Schema.String, { default: () => "" }),
  clarityState: Schema.optional(ClarityState),
  stepOutput: Schema.optionalWith(Schema.String, { default: () => "" }),
  status: Schema.optionalWith(StepStatus, { default: () => "pending" as const }),
  error: Schema.optional(Schema.String),
  executed: Schema.optional(Schema.Boolean),
  supersededBy: Schema.optional(Schema.String),
  manualIntervention: Schema.optional(Schema.String),
  subplan: Schema.optional(Schema.suspend((): Schema.Schema<Subplan, SubplanEncoded> => Subplan))
})

/** A step that calls a tool. */
export type ToolStep = PlanStep & { readonly tool: string }

/** Whether the step calls a tool. */
export const isToolStep = (step: PlanStep): step is ToolStep => step.tool !== undefined

export interface PlanStepEncoded extends Schema.Struct.Encoded<typeof PlanStepFields.fields> {
  readonly subplan?: SubplanEncoded | undefined
}
interface SubplanEncoded {
  readonly parentStepId: string
  readonly subplanGoal: string
  readonly substeps: ReadonlyArray<PlanStepEncoded>
  readonly depthLevel: number
  readonly createdBy: string
}

export const PlanStep: Schema.Schema<PlanStep, PlanStepEncoded> = PlanStepFields.pipe(
  Schema.filter((s) => s.stepIndex <= s.totalSteps || `stepIndex ${s.stepIndex} must be <= totalSteps ${s.totalSteps}`),
  Schema.filter((s) =>
    s.clarityState !== "BLOCKED" || s.status === "invalid" || s.status === "running" ||
    `step ${s.stepId}: clarityState BLOCKED requires status invalid (was ${s.status})`
  )
)

export const MAX_SUBPLAN_DEPTH = 5

export const Subplan: Schema.Schema<Subplan, SubplanEncoded> = Schema.Struct({
  parentStepId: NonEmpty("parentStepId"),
  subplanGoal: NonEmpty("subplanGoal"),
  substeps: Schema.Array(PlanStep).pipe(Schema.filter((a) => a.length > 0 || "substeps must be a non-empty array")),
  depthLevel: Schema.Int.pipe(
    Schema.filter((n) =>
      (n >= 1 && n <= MAX_SUBPLAN_DEPTH) || `depthLevel must be between 1 and ${MAX_SUBPLAN_DEPTH} (was ${n})`
    )
  ),
  createdBy: NonEmpty("createdBy")
})

/** Structural rules of a plan; returns the first broken rule or undefined. */
export const planRuleViolation = (plan: { readonly steps: ReadonlyArray<PlanStep> }): string | undefined => {
  const ids = new Set<string>()
  const indexes = new Set<number>()
  for (const step of plan.steps) {
    if (ids.has(step.stepId)) return `stepId ${step.stepId} must be unique within the plan`
    ids.add(step.stepId)
    if (indexes.has(step.stepIndex)) return `stepIndex ${step.stepIndex} must be unique within the plan`
    indexes.add(step.stepIndex)
    if (step.totalSteps !== plan.steps.length) {
      return `totalSteps of step ${step.stepId} (${step.totalSteps}) must equal the number of steps in the plan (${plan.steps.length})`
    }
  }
  for (const step of plan.steps) {
    for (const dep of step.dependencies) {
      if (!ids.has(dep)) return `step ${step.stepId} depends on ${dep}, which is not a step of the plan`
    }
  }
  return undefined
}

export const Plan = Schema.Struct({
  goal: NonEmpty("goal"),
  steps: Schema.Array(PlanStep),
  /**
   * The final answer as the planner wrote it, when it needs no more than the steps' results: `{{sN}}` (or
   * `{{sN.field}}`) stands for a step's result. A converged simple iteration answers with it filled in, no synthesis
   * call; FULL, or a reference that does not resolve, synthesizes as before.
   */
  answer: Schema.optional(Schema.String)
}).pipe(Schema.filter((p) => planRuleViolation(p) ?? true))
export type Plan = typeof Plan.Type

/** Allowed status transitions of a step (data model, "State Transitions"). */
export const transitionStep = (
  step: PlanStep,
  to: StepStatus
): Either.Either<PlanStep, string> => {
  const from = step.status
  const ok = (from === "pending" && to === "running") ||
    (from === "running" && (to === "complete" || to === "failed" || to === "invalid")) ||
    (from === "invalid" && to === "pending" && !step.executed)
  if (!ok) {
    return Either.left(
      from === "invalid" && to === "pending"
        ? `step ${step.stepId}: invalid → pending is allowed only for steps never executed`
        : `step ${step.stepId}: transition ${from} → ${to} is not allowed`
    )
  }
  if (to === "complete" && step.clarityState === "BLOCKED") {
    return Either.left(`step ${step.stepId}: clarityState BLOCKED requires status invalid`)
  }
  return Either.right(extend(step, { status: to, executed: step.executed || to === "running" }))
}

/** A step as its execution left it (what StepFinished records): status, outputs, clarity, error; executed. */
export const finishStep = (
  step: PlanStep,
  f: {
    readonly status: StepStatus
    readonly stepOutput: string
    readonly handoffToNext: string
    readonly clarityState?: string | undefined
    readonly error?: string | undefined
  }
): PlanStep =>
  extend(step, {
    status: f.status,
    stepOutput: f.stepOutput,
    handoffToNext: f.handoffToNext,
    executed: true,
    ...(isClarityState(f.clarityState) ? { clarityState: f.clarityState } : {}),
    ...(f.error ? { error: f.error } : {})
  })

/** Renumber steps 1..n with the right totalSteps, keeping their order. */
export const renumber = (steps: ReadonlyArray<PlanStep>): Array<PlanStep> =>
  steps.map((s, i) => ({ ...s, stepIndex: i + 1, totalSteps: steps.length }))

export const isExecuted = (s: PlanStep) => s.executed === true || s.status === "complete" || s.status === "failed"

/** The steps that still count: superseded steps are history, not part of the answer. */
export const liveSteps = <S extends { readonly supersededBy?: string | undefined }>(
  steps: ReadonlyArray<S>
): Array<S> => steps.filter((s) => s.supersededBy === undefined)
