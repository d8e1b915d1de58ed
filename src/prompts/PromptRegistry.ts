import { Effect, ParseResult, Schema } from "effect"
import { recordOf } from "../support/Fields.js"
import { plainJsonSchema } from "../support/JsonSchemas.js"
import { ALL_PROMPT_IDS, PromptId } from "./PromptId.js"
import * as S from "./Schemas.js"
import { PlanOutput } from "./Schemas.js"
import { renderTemplate, templates } from "./Templates.js"

export class PromptInputError extends Schema.TaggedError<PromptInputError>()("PromptInputError", {
  promptId: Schema.String,
  message: Schema.String
}) {}

export interface PromptDefinition<I = any, O = any> {
  readonly id: PromptId
  readonly template: string
  readonly input: Schema.Schema<I, any>
  readonly output?: Schema.Schema<O, any> | undefined
}

/** A system + user pair: what a model call is made of. The user prompt carries the contract's types. */
export interface PromptContract<I, O> {
  readonly id: PromptId
  readonly system: PromptDefinition
  readonly user: PromptDefinition<I, O>
  readonly output: Schema.Schema<O, any>
  /** The JSON Schema sent as the output format when it is the caller's (a run's output schema), not the contract's. */
  readonly jsonSchema?: object | undefined
  /** Sent strict (the caller's schema can have it). */
  readonly strict?: boolean | undefined
}

const def = <I, O>(
  id: PromptId,
  input: Schema.Schema<I, any>,
  output?: Schema.Schema<O, any>
): PromptDefinition<I, O> => ({ id, template: templates[id], input, output })

const system = (id: PromptId) => def(id, S.NoInput)

export const registry: ReadonlyMap<PromptId, PromptDefinition> = new Map<PromptId, PromptDefinition>([
  [PromptId.PLAN_GENERATION_SYSTEM, system(PromptId.PLAN_GENERATION_SYSTEM)],
  [PromptId.PLAN_GENERATION_USER, def(PromptId.PLAN_GENERATION_USER, S.PlanGenerationInput, PlanOutput)],
  [PromptId.PLAN_DIRECT_SYSTEM, system(PromptId.PLAN_DIRECT_SYSTEM)],
  [PromptId.PLAN_DIRECT_USER, def(PromptId.PLAN_DIRECT_USER, S.PlanDirectInput, S.PlanDirectOutput)],
  [PromptId.REASONING_STEP_SYSTEM, system(PromptId.REASONING_STEP_SYSTEM)],
  [PromptId.REASONING_STEP_USER, def(PromptId.REASONING_STEP_USER, S.ReasoningStepInput, S.ReasoningStepOutput)],
  [PromptId.VALIDATION_SEMANTIC_SYSTEM, system(PromptId.VALIDATION_SEMANTIC_SYSTEM)],
  [PromptId.VALIDATION_SEMANTIC_USER, def(PromptId.VALIDATION_SEMANTIC_USER, S.ValidationInput, S.ValidationOutput)],
  [PromptId.CONVERGENCE_ASSESSMENT_SYSTEM, system(PromptId.CONVERGENCE_ASSESSMENT_SYSTEM)],
  [
    PromptId.CONVERGENCE_ASSESSMENT_USER,
    def(PromptId.CONVERGENCE_ASSESSMENT_USER, S.ConvergenceInput, S.ConvergenceOutput)
  ],
  [PromptId.TASKPROFILE_INFERENCE_SYSTEM, system(PromptId.TASKPROFILE_INFERENCE_SYSTEM)],
  [
    PromptId.TASKPROFILE_INFERENCE_USER,
    def(PromptId.TASKPROFILE_INFERENCE_USER, S.TaskProfileInferenceInput, S.TaskProfileOutput)
  ],
  [PromptId.TASKPROFILE_UPDATE_SYSTEM, system(PromptId.TASKPROFILE_UPDATE_SYSTEM)],
  [
    PromptId.TASKPROFILE_UPDATE_USER,
    def(PromptId.TASKPROFILE_UPDATE_USER, S.TaskProfileUpdateInput, S.TaskProfileUpdateOutput)
  ],
  [
    PromptId.RECURSIVE_PLAN_GENERATION_USER,
    def(PromptId.RECURSIVE_PLAN_GENERATION_USER, S.RecursivePlanInput, PlanOutput)
  ],
  [
    PromptId.RECURSIVE_SUBPLAN_GENERATION_USER,
    def(PromptId.RECURSIVE_SUBPLAN_GENERATION_USER, S.SubplanInput, S.SubplanOutput)
  ],
  [PromptId.RECURSIVE_REFINEMENT_SYSTEM, system(PromptId.RECURSIVE_REFINEMENT_SYSTEM)],
  [PromptId.RECURSIVE_REFINEMENT_USER, def(PromptId.RECURSIVE_REFINEMENT_USER, S.RefinementInput, S.RefinementOutput)],
  [PromptId.SUPERVISOR_REPAIR_SYSTEM, system(PromptId.SUPERVISOR_REPAIR_SYSTEM)],
  [
    PromptId.SUPERVISOR_REPAIR_JSON_USER,
    def(PromptId.SUPERVISOR_REPAIR_JSON_USER, S.RepairJsonInput, S.RepairJsonOutput)
  ],
  [
    PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER,
    def(PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER, S.RepairToolCallInput, S.RepairToolCallOutput)
  ],
  [PromptId.SUPERVISOR_REPAIR_PLAN_USER, def(PromptId.SUPERVISOR_REPAIR_PLAN_USER, S.RepairPlanInput, PlanOutput)],
  [
    PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER,
    def(PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER, S.RepairMissingToolInput, S.RepairMissingToolOutput)
  ],
  [PromptId.ANSWER_SYNTHESIS_SYSTEM, system(PromptId.ANSWER_SYNTHESIS_SYSTEM)],
  [
    PromptId.ANSWER_SYNTHESIS_USER,
    def(PromptId.ANSWER_SYNTHESIS_USER, S.AnswerSynthesisInput, S.AnswerSynthesisOutput)
  ],
  [PromptId.ANSWER_TYPED_SYSTEM, system(PromptId.ANSWER_TYPED_SYSTEM)],
  [PromptId.ANSWER_TYPED_USER, def(PromptId.ANSWER_TYPED_USER, S.TypedAnswerInput, S.TypedAnswerOutput)],
  [PromptId.CONVERSATION_SUMMARY_SYSTEM, system(PromptId.CONVERSATION_SUMMARY_SYSTEM)],
  [
    PromptId.CONVERSATION_SUMMARY_USER,
    def(PromptId.CONVERSATION_SUMMARY_USER, S.ConversationSummaryInput, S.ConversationSummaryOutput)
  ],
  [PromptId.EVAL_RUBRIC_SYSTEM, system(PromptId.EVAL_RUBRIC_SYSTEM)],
  [PromptId.EVAL_RUBRIC_USER, def(PromptId.EVAL_RUBRIC_USER, S.EvalRubricInput, S.EvalRubricOutput)]
])

for (const id of ALL_PROMPT_IDS) if (!registry.has(id)) throw new Error(`prompt ${id} is not registered`)

export const getDefinition = (id: PromptId): PromptDefinition => registry.get(id)!

/** Decodes the input against the prompt's input schema, then renders the template. */
export const render = (id: PromptId, input: unknown): Effect.Effect<string, PromptInputError> => {
  const definition = getDefinition(id)
  return Schema.decodeUnknown(definition.input)(input).pipe(
    Effect.mapError((e) =>
      new PromptInputError({ promptId: id, message: ParseResult.TreeFormatter.formatErrorSync(e) })
    ),
    Effect.map((decoded) => renderTemplate(definition.template, recordOf(decoded) ?? {}))
  )
}

const contract = <I, O>(systemId: PromptId, userId: PromptId): PromptContract<I, O> => {
  const user = getDefinition(userId) as PromptDefinition<I, O>
  return { id: userId, system: getDefinition(systemId), user, output: user.output! }
}

const jsonSchemaCache = new Map<PromptId, object>()
/**
 * The JSON Schema sent to the model as the structured-output format: what the answer's shape needs, without what a
 * model cannot use and a provider bills on every call (the draft's URL, an unknown value's `$id` and `title`).
 */
export const outputJsonSchema = (c: PromptContract<any, any>): object => {
  if (c.jsonSchema !== undefined) return c.jsonSchema
  const cached = jsonSchemaCache.get(c.id)
  if (cached) return cached
  const made: object = plainJsonSchema(Schema.typeSchema(c.output))
  jsonSchemaCache.set(c.id, made)
  return made
}

type In<S> = S extends Schema.Schema<any, infer E, any> ? E : never
type Out<S> = S extends Schema.Schema<infer A, any, any> ? A : never

export const Contracts = {
  planGeneration: contract<In<typeof S.PlanGenerationInput>, Out<typeof PlanOutput>>(
    PromptId.PLAN_GENERATION_SYSTEM,
    PromptId.PLAN_GENERATION_USER
  ),
  planDirect: contract<In<typeof S.PlanDirectInput>, Out<typeof S.PlanDirectOutput>>(
    PromptId.PLAN_DIRECT_SYSTEM,
    PromptId.PLAN_DIRECT_USER
  ),
  reasoningStep: contract<In<typeof S.ReasoningStepInput>, Out<typeof S.ReasoningStepOutput>>(
    PromptId.REASONING_STEP_SYSTEM,
    PromptId.REASONING_STEP_USER
  ),
  validation: contract<In<typeof S.ValidationInput>, Out<typeof S.ValidationOutput>>(
    PromptId.VALIDATION_SEMANTIC_SYSTEM,
    PromptId.VALIDATION_SEMANTIC_USER
  ),
  convergence: contract<In<typeof S.ConvergenceInput>, Out<typeof S.ConvergenceOutput>>(
    PromptId.CONVERGENCE_ASSESSMENT_SYSTEM,
    PromptId.CONVERGENCE_ASSESSMENT_USER
  ),
  profileInference: contract<In<typeof S.TaskProfileInferenceInput>, Out<typeof S.TaskProfileOutput>>(
    PromptId.TASKPROFILE_INFERENCE_SYSTEM,
    PromptId.TASKPROFILE_INFERENCE_USER
  ),
  profileUpdate: contract<In<typeof S.TaskProfileUpdateInput>, Out<typeof S.TaskProfileUpdateOutput>>(
    PromptId.TASKPROFILE_UPDATE_SYSTEM,
    PromptId.TASKPROFILE_UPDATE_USER
  ),
  recursivePlan: contract<In<typeof S.RecursivePlanInput>, Out<typeof PlanOutput>>(
    PromptId.RECURSIVE_REFINEMENT_SYSTEM,
    PromptId.RECURSIVE_PLAN_GENERATION_USER
  ),
  subplan: contract<In<typeof S.SubplanInput>, Out<typeof S.SubplanOutput>>(
    PromptId.RECURSIVE_REFINEMENT_SYSTEM,
    PromptId.RECURSIVE_SUBPLAN_GENERATION_USER
  ),
  refinement: contract<In<typeof S.RefinementInput>, Out<typeof S.RefinementOutput>>(
    PromptId.RECURSIVE_REFINEMENT_SYSTEM,
    PromptId.RECURSIVE_REFINEMENT_USER
  ),
  repairJson: contract<In<typeof S.RepairJsonInput>, Out<typeof S.RepairJsonOutput>>(
    PromptId.SUPERVISOR_REPAIR_SYSTEM,
    PromptId.SUPERVISOR_REPAIR_JSON_USER
  ),
  repairToolCall: contract<In<typeof S.RepairToolCallInput>, Out<typeof S.RepairToolCallOutput>>(
    PromptId.SUPERVISOR_REPAIR_SYSTEM,
    PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER
  ),
  repairPlan: contract<In<typeof S.RepairPlanInput>, Out<typeof PlanOutput>>(
    PromptId.SUPERVISOR_REPAIR_SYSTEM,
    PromptId.SUPERVISOR_REPAIR_PLAN_USER
  ),
  repairMissingTool: contract<In<typeof S.RepairMissingToolInput>, Out<typeof S.RepairMissingToolOutput>>(
    PromptId.SUPERVISOR_REPAIR_SYSTEM,
    PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER
  ),
  answerSynthesis: contract<In<typeof S.AnswerSynthesisInput>, Out<typeof S.AnswerSynthesisOutput>>(
    PromptId.ANSWER_SYNTHESIS_SYSTEM,
    PromptId.ANSWER_SYNTHESIS_USER
  ),
  /** The answer as a value of a run's output schema: `typedAnswer(sent, strict)` is the contract of that schema. */
  typedAnswer: contract<In<typeof S.TypedAnswerInput>, unknown>(
    PromptId.ANSWER_TYPED_SYSTEM,
    PromptId.ANSWER_TYPED_USER
  ),
  /** The oldest turns of a conversation compacted into notes (kernel/ConversationContext). */
  conversationSummary: contract<In<typeof S.ConversationSummaryInput>, Out<typeof S.ConversationSummaryOutput>>(
    PromptId.CONVERSATION_SUMMARY_SYSTEM,
    PromptId.CONVERSATION_SUMMARY_USER
  ),
  /** An eval case's rubric: the answer judged against what a person wrote (run/Eval). */
  evalRubric: contract<In<typeof S.EvalRubricInput>, Out<typeof S.EvalRubricOutput>>(
    PromptId.EVAL_RUBRIC_SYSTEM,
    PromptId.EVAL_RUBRIC_USER
  )
} as const

/** The typed answer's contract for one run's output schema: sent as its output format, strict when it can be. */
export const typedAnswerContract = (
  sent: object,
  strict: boolean
): PromptContract<In<typeof S.TypedAnswerInput>, unknown> => ({ ...Contracts.typedAnswer, jsonSchema: sent, strict })
