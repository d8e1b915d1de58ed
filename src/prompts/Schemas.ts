import { Schema } from "effect"
import { IssueType, Severity } from "../domain/Evaluation.js"
import { RefinementActionType } from "../domain/Execution.js"
import { ClarityState } from "../domain/Plan.js"
import { TaskProfileDimensions } from "../domain/Profile.js"
import { lenient } from "./ModelShapes.js"
import {
  normalizeAnswer,
  normalizeConvergence,
  normalizePlan,
  normalizeProfile,
  normalizeReasoningStep,
  normalizeRefinement,
  normalizeSubplan,
  normalizeValidation
} from "./OutputShapes.js"

/** Inputs and outputs of the prompt contracts. Outputs are what the model must answer (JSON). */

export const NoInput = Schema.Struct({})

const ToolSummary = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  inputSchema: Schema.optional(Schema.Unknown)
})
const StepView = Schema.Struct({
  stepId: Schema.String,
  stepIndex: Schema.Int,
  description: Schema.String,
  tool: Schema.optional(Schema.String),
  toolInput: Schema.optional(Schema.Unknown),
  dependencies: Schema.Array(Schema.String),
  status: Schema.String,
  stepOutput: Schema.optional(Schema.String),
  clarityState: Schema.optional(Schema.String)
})
export const PlanView = Schema.Struct({ goal: Schema.String, steps: Schema.Array(StepView) })
export type PlanView = typeof PlanView.Type

const NonEmptyString = (what: string) =>
  Schema.String.pipe(Schema.filter((s) => s.trim().length > 0 || `${what} must be non-empty`))

export const PlanGenerationInput = Schema.Struct({
  request: NonEmptyString("request"),
  /** The tools offered, as the stand-in models read them (the prompt shows `toolList`). */
  tools: Schema.Array(ToolSummary),
  /** The tools offered, an entry a line (planning/ToolCatalog). */
  toolList: Schema.optionalWith(Schema.String, { default: () => "(none)" }),
  reasoningMode: Schema.optionalWith(Schema.String, { default: () => "balanced" }),
  escalationContext: Schema.optional(Schema.String),
  /** Notes from the user's earlier runs, as PromptViews.earlierRunsSection quotes them. */
  earlierRuns: Schema.optional(Schema.String),
  /** The conversation the run is a turn of, as memory/Conversation quotes it. */
  conversation: Schema.optional(Schema.String),
  /** The run's output schema, as PromptViews.answerShapeSection says it: the plan's answer may fill it. */
  answerShape: Schema.optional(Schema.String)
})
const PlannedStep = Schema.Struct({
  stepId: Schema.String,
  /** A tool step may leave it out: its call describes it. */
  description: Schema.optional(Schema.String),
  tool: Schema.optional(Schema.String),
  toolInput: Schema.optional(Schema.Unknown),
  dependencies: Schema.optional(Schema.Array(Schema.String)),
  provides: Schema.optional(Schema.Array(Schema.String)),
  /** A step needing no tool that the planner can answer now: its result. */
  answer: Schema.optional(Schema.String)
})
export type PlannedStep = typeof PlannedStep.Type
export const PlanOutput = lenient(
  Schema.Struct({
    /** Left out when it is the task itself (the run then takes the task as the goal). */
    goal: Schema.optional(Schema.String),
    steps: Schema.Array(PlannedStep),
    /** The final answer when it needs no more than the steps' results: `{{sN}}` stands for step sN's result. */
    answer: Schema.optional(Schema.String)
  }),
  normalizePlan
)
export type PlanOutput = typeof PlanOutput.Type

/** A task planned without tools: what the planner says (the steps' answers), in the plan's shape. */
export const PlanDirectInput = Schema.Struct({
  request: NonEmptyString("request"),
  /** Earlier attempts' failures, as a section of the prompt. */
  escalationContext: Schema.optional(Schema.String),
  earlierRuns: Schema.optional(Schema.String),
  conversation: Schema.optional(Schema.String),
  answerShape: Schema.optional(Schema.String)
})
export const PlanDirectOutput = lenient(
  Schema.Struct({
    goal: Schema.optional(Schema.String),
    steps: Schema.Array(Schema.Struct({
      stepId: Schema.String,
      description: Schema.optional(Schema.String),
      dependencies: Schema.optional(Schema.Array(Schema.String)),
      answer: Schema.optional(Schema.String)
    })),
    answer: Schema.optional(Schema.String)
  }),
  normalizePlan
)

export const ReasoningStepInput = Schema.Struct({
  request: NonEmptyString("request"),
  planGoal: Schema.String,
  stepId: Schema.String,
  stepDescription: NonEmptyString("stepDescription"),
  stepIndex: Schema.Int,
  totalSteps: Schema.Int,
  passNumber: Schema.Int,
  phase: Schema.String,
  ttlRemaining: Schema.Int,
  correlationId: Schema.String,
  incomingContext: Schema.String,
  toolName: Schema.optional(Schema.String),
  toolResult: Schema.optional(Schema.Unknown),
  memoryContext: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type ReasoningStepInput = typeof ReasoningStepInput.Type
export const ReasoningStepOutput = lenient(
  Schema.Struct({
    stepOutput: Schema.String,
    clarityState: ClarityState,
    handoffToNext: Schema.String
  }),
  normalizeReasoningStep
)

export const ValidationInput = Schema.Struct({
  request: Schema.String,
  artifactType: Schema.String,
  plan: PlanView,
  tools: Schema.Array(Schema.String),
  finalAnswer: Schema.optional(Schema.String),
  knownIssues: Schema.Array(Schema.String)
})
export const ValidationOutput = lenient(
  Schema.Struct({
    issues: Schema.Array(Schema.Struct({
      type: IssueType,
      severity: Severity,
      description: Schema.String,
      stepId: Schema.optional(Schema.String),
      proposedRepair: Schema.optional(Schema.String)
    })),
    /** Issues whose type could not be read (kept for the run's advisories, not dropped in silence). */
    unreadable: Schema.optional(Schema.Array(Schema.String))
  }),
  normalizeValidation
)

export const ConvergenceInput = Schema.Struct({
  request: Schema.String,
  plan: PlanView,
  validationSummary: Schema.String,
  completenessThreshold: Schema.Number,
  coherenceThreshold: Schema.Number
})
export const ConvergenceOutput = lenient(
  Schema.Struct({
    converged: Schema.Boolean,
    completenessScore: Schema.Number,
    coherenceScore: Schema.Number,
    // a list of pairs, not a map: an open object is refused by Claude's structured output (every object closed)
    consistencyAlignment: Schema.Array(Schema.Struct({ name: Schema.String, aligned: Schema.Boolean })),
    reasoning: Schema.String,
    confidence: Schema.Number,
    reasonCodes: Schema.optional(Schema.Array(Schema.String)),
    detectedIssues: Schema.optional(Schema.Array(Schema.String))
  }),
  normalizeConvergence
)

export const TaskProfileInferenceInput = Schema.Struct({
  request: NonEmptyString("request"),
  context: Schema.optional(Schema.String)
})
export const TaskProfileOutput = lenient(TaskProfileDimensions, normalizeProfile)
export const TaskProfileUpdateInput = Schema.Struct({
  request: Schema.String,
  currentProfile: Schema.Unknown,
  passNumber: Schema.Int,
  validationIssueCount: Schema.Int,
  convergenceFailures: Schema.Array(Schema.String),
  refinementsNeeded: Schema.Int
})
export const TaskProfileUpdateOutput = lenient(
  Schema.Struct({
    ...TaskProfileDimensions.fields,
    adjustmentReason: Schema.String
  }),
  normalizeProfile
)

export const RecursivePlanInput = Schema.Struct({
  request: Schema.String,
  goal: Schema.String,
  tools: Schema.Array(Schema.String),
  depthLevel: Schema.Int
})
export const SubplanInput = Schema.Struct({
  request: Schema.String,
  parentStep: StepView,
  depthLevel: Schema.Int,
  tools: Schema.Array(Schema.String)
})
export const SubplanOutput = lenient(
  Schema.Struct({ subplanGoal: Schema.String, substeps: Schema.Array(PlannedStep) }),
  normalizeSubplan
)

export const RefinementInput = Schema.Struct({
  request: Schema.String,
  plan: PlanView,
  issues: Schema.Array(Schema.String),
  convergenceReasons: Schema.Array(Schema.String),
  tools: Schema.Array(Schema.String),
  frozenStepIds: Schema.Array(Schema.String),
  /** A person's guidance, where the run asked for it. */
  guidance: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** Steps whose results came from outside the run (untrusted data). */
  untrustedStepIds: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})
export const RefinementOutput = lenient(
  Schema.Struct({
    actions: Schema.Array(Schema.Struct({
      actionType: RefinementActionType,
      targetStepId: Schema.optional(Schema.String),
      newStep: Schema.optional(PlannedStep),
      subplanGoal: Schema.optional(Schema.String),
      substeps: Schema.optional(Schema.Array(PlannedStep)),
      justification: Schema.String
    })),
    followUpQuestions: Schema.optional(Schema.Array(Schema.String))
  }),
  normalizeRefinement
)
export type RefinementOutput = typeof RefinementOutput.Type

export const RepairJsonInput = Schema.Struct({
  raw: Schema.String,
  decodeError: Schema.String,
  expectedSchema: Schema.Unknown
})
export const RepairJsonOutput = Schema.Struct({ repairedJson: Schema.String })
export const RepairToolCallInput = Schema.Struct({
  tool: Schema.String,
  toolDescription: Schema.String,
  inputSchema: Schema.Unknown,
  badInput: Schema.Unknown,
  decodeError: Schema.String
})
export const RepairToolCallOutput = Schema.Struct({ toolInput: Schema.Unknown })
export const RepairPlanInput = Schema.Struct({ request: Schema.String, plan: Schema.Unknown, violation: Schema.String })
export const RepairMissingToolInput = Schema.Struct({
  stepDescription: Schema.String,
  missingTool: Schema.String,
  tools: Schema.Array(Schema.String)
})
export const RepairMissingToolOutput = Schema.Struct({
  replacementTool: Schema.NullOr(Schema.String),
  justification: Schema.String
})

export const AnswerSynthesisInput = Schema.Struct({
  request: NonEmptyString("request"),
  executionResults: Schema.Array(
    Schema.Struct({
      stepId: Schema.String,
      description: Schema.String,
      status: Schema.String,
      stepOutput: Schema.String
    })
  ),
  convergenceStatus: Schema.Boolean,
  label: Schema.String,
  totalPasses: Schema.Int,
  ttlRemaining: Schema.Int,
  /** What the run's criteria require of the answer (format, terms), and why an earlier attempt fell short. */
  answerRequirements: Schema.optional(Schema.String),
  conversation: Schema.optional(Schema.String)
})
export const AnswerSynthesisOutput = lenient(
  Schema.Struct({
    answerText: Schema.String,
    confidence: Schema.Number,
    usedStepIds: Schema.Array(Schema.String),
    notes: Schema.optional(Schema.String)
  }),
  normalizeAnswer
)

export const TypedAnswerInput = Schema.Struct({
  request: NonEmptyString("request"),
  executionResults: AnswerSynthesisInput.fields.executionResults,
  convergenceStatus: Schema.Boolean,
  label: Schema.String,
  /** What the run's other answer criteria require, as a section of the prompt. */
  answerRequirements: Schema.optional(Schema.String),
  /** An earlier value and what in it broke the schema, as a section of the prompt (the one repair). */
  repair: Schema.optional(Schema.String),
  conversation: Schema.optional(Schema.String)
})

/** The oldest messages of a conversation and the notes made of those before them, compacted into new notes. */
export const ConversationSummaryInput = Schema.Struct({
  summary: Schema.optional(Schema.String),
  messages: NonEmptyString("messages"),
  maxTokens: Schema.Int
})
export const ConversationSummaryOutput = Schema.Struct({ summary: Schema.String })
/** Any JSON: the value is checked against the run's output schema by the caller (convergence/OutputSchema). */
export const TypedAnswerOutput = Schema.Unknown

export const EvalRubricInput = Schema.Struct({
  rubric: NonEmptyString("rubric"),
  task: Schema.String,
  status: Schema.String,
  answer: Schema.String
})
export const EvalRubricOutput = Schema.Struct({
  passed: Schema.Boolean,
  score: Schema.Number.pipe(Schema.clamp(0, 1)),
  reasoning: Schema.String
})
