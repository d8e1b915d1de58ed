import { Schema } from "effect"
import { ConvergenceAssessment, SemanticValidationReport, ValidationIssue } from "./Evaluation.js"
import { Plan, PlanStep } from "./Plan.js"
import { AdaptiveDepthConfiguration, TaskProfile } from "./Profile.js"

export const Phase = Schema.Literal("PLAN", "EXECUTE", "EVALUATE", "REFINE", "RE_EXECUTE")
export type Phase = typeof Phase.Type

export const RefinementActionType = Schema.Literal(
  "ADD",
  "MODIFY",
  "REMOVE",
  "REPLACE",
  "SUBPLAN_CREATE",
  "STEP_MARK_INVALID"
)
export type RefinementActionType = typeof RefinementActionType.Type

const needsTarget: ReadonlyArray<RefinementActionType> = [
  "MODIFY",
  "REMOVE",
  "REPLACE",
  "STEP_MARK_INVALID",
  "SUBPLAN_CREATE"
]
const needsNewStep: ReadonlyArray<RefinementActionType> = ["ADD", "MODIFY", "REPLACE"]

export const RefinementAction = Schema.Struct({
  actionType: RefinementActionType,
  targetStepId: Schema.optional(Schema.String),
  newStep: Schema.optional(PlanStep),
  /** For SUBPLAN_CREATE: the goal and the substeps (declarative data). */
  subplanGoal: Schema.optional(Schema.String),
  substeps: Schema.optional(Schema.Array(PlanStep)),
  justification: Schema.String,
  semanticValidationInput: Schema.optional(Schema.Array(ValidationIssue)),
  inconsistencyDetected: Schema.optionalWith(Schema.Boolean, { default: () => false })
}).pipe(
  Schema.filter((a) => a.justification.trim().length > 0 || "justification must be a non-empty string"),
  Schema.filter((a) =>
    !needsTarget.includes(a.actionType) || (a.targetStepId !== undefined && a.targetStepId !== "") ||
    `targetStepId is required for ${a.actionType}`
  ),
  Schema.filter((a) =>
    !needsNewStep.includes(a.actionType) || a.newStep !== undefined || `newStep is required for ${a.actionType}`
  ),
  Schema.filter((a) =>
    a.actionType !== "SUBPLAN_CREATE" || (a.substeps !== undefined && a.substeps.length > 0) ||
    "substeps (non-empty) are required for SUBPLAN_CREATE"
  )
)
export type RefinementAction = typeof RefinementAction.Type

export const StepExecutionResult = Schema.Struct({
  stepOutput: Schema.String,
  clarityState: Schema.optional(Schema.String),
  status: Schema.String,
  toolResult: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.String)
})

const IsoDate = Schema.String.pipe(Schema.filter((s) => !Number.isNaN(Date.parse(s)) || `${s} is not an ISO 8601 time`))

export const TimingInformation = Schema.Struct({
  startTime: IsoDate,
  endTime: IsoDate,
  durationSeconds: Schema.Number
}).pipe(
  Schema.filter((t) => Date.parse(t.startTime) <= Date.parse(t.endTime) || "timing startTime must be before endTime")
)

export const ExecutionPass = Schema.Struct({
  passNumber: Schema.Int.pipe(Schema.filter((n) => n >= 0 || "passNumber must be >= 0")),
  phase: Phase,
  phases: Schema.Array(Phase),
  planState: Plan,
  executionResults: Schema.Record({ key: Schema.String, value: StepExecutionResult }),
  evaluationResults: Schema.Struct({
    validationReport: Schema.optional(SemanticValidationReport),
    convergence: Schema.optional(ConvergenceAssessment)
  }),
  refinementChanges: Schema.Array(RefinementAction),
  advisories: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  ttlRemaining: Schema.Int.pipe(Schema.filter((n) => n >= 0 || "ttlRemaining must be >= 0")),
  taskProfile: Schema.optional(TaskProfile),
  depthConfiguration: Schema.optional(AdaptiveDepthConfiguration),
  timingInformation: TimingInformation
})
export type ExecutionPass = typeof ExecutionPass.Type

export const OverallStatistics = Schema.Struct({
  totalPasses: Schema.Int,
  totalRefinements: Schema.Int,
  convergenceAchieved: Schema.Boolean,
  totalTimeSeconds: Schema.Number
})

export const ExecutionHistory = Schema.Struct({
  executionId: Schema.String,
  taskInput: Schema.String,
  configuration: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  passes: Schema.Array(ExecutionPass).pipe(Schema.filter((p) => p.length > 0 || "passes must be a non-empty array")),
  finalResult: Schema.Struct({
    converged: Schema.Boolean,
    resultType: Schema.String,
    output: Schema.Unknown,
    metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  }),
  overallStatistics: OverallStatistics
}).pipe(
  Schema.filter((h) => {
    for (let i = 0; i < h.passes.length; i++) {
      if (h.passes[i]!.passNumber !== i) {
        return `passes must be ordered by passNumber, sequential from 0 (position ${i} has ${h.passes[i]!.passNumber})`
      }
    }
    if (h.overallStatistics.totalPasses !== h.passes.length) {
      return `overallStatistics.totalPasses (${h.overallStatistics.totalPasses}) must equal the number of passes (${h.passes.length})`
    }
    const refinements = h.passes.reduce((n, p) => n + p.refinementChanges.length, 0)
    if (h.overallStatistics.totalRefinements !== refinements) {
      return `overallStatistics.totalRefinements (${h.overallStatistics.totalRefinements}) must equal the refinements in the passes (${refinements})`
    }
    if (h.overallStatistics.convergenceAchieved !== h.finalResult.converged) {
      return "overallStatistics.convergenceAchieved must agree with finalResult.converged"
    }
    return true
  })
)
export type ExecutionHistory = typeof ExecutionHistory.Type
