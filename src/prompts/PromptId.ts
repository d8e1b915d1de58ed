/** Every prompt of the engine. The design documents' typo CONVERGENCE_ASSSESSMENT_USER is fixed here. */
export const PromptId = {
  PLAN_GENERATION_SYSTEM: "plan_generation_system",
  PLAN_GENERATION_USER: "plan_generation_user",
  /** A task that needs no tool, planned without the tool catalog (planning/ToolCatalog). */
  PLAN_DIRECT_SYSTEM: "plan_direct_system",
  PLAN_DIRECT_USER: "plan_direct_user",
  REASONING_STEP_SYSTEM: "reasoning_step_system",
  REASONING_STEP_USER: "reasoning_step_user",
  VALIDATION_SEMANTIC_SYSTEM: "validation_semantic_system",
  VALIDATION_SEMANTIC_USER: "validation_semantic_user",
  CONVERGENCE_ASSESSMENT_SYSTEM: "convergence_assessment_system",
  CONVERGENCE_ASSESSMENT_USER: "convergence_assessment_user",
  TASKPROFILE_INFERENCE_SYSTEM: "taskprofile_inference_system",
  TASKPROFILE_INFERENCE_USER: "taskprofile_inference_user",
  TASKPROFILE_UPDATE_SYSTEM: "taskprofile_update_system",
  TASKPROFILE_UPDATE_USER: "taskprofile_update_user",
  RECURSIVE_PLAN_GENERATION_USER: "recursive_plan_generation_user",
  RECURSIVE_SUBPLAN_GENERATION_USER: "recursive_subplan_generation_user",
  RECURSIVE_REFINEMENT_SYSTEM: "recursive_refinement_system",
  RECURSIVE_REFINEMENT_USER: "recursive_refinement_user",
  SUPERVISOR_REPAIR_SYSTEM: "supervisor_repair_system",
  SUPERVISOR_REPAIR_JSON_USER: "supervisor_repair_json_user",
  SUPERVISOR_REPAIR_TOOLCALL_USER: "supervisor_repair_toolcall_user",
  SUPERVISOR_REPAIR_PLAN_USER: "supervisor_repair_plan_user",
  SUPERVISOR_REPAIR_MISSINGTOOL_USER: "supervisor_repair_missingtool_user",
  ANSWER_SYNTHESIS_SYSTEM: "answer_synthesis_system",
  ANSWER_SYNTHESIS_USER: "answer_synthesis_user",
  /** The answer as a value of the run's output schema (run input outputSchema). */
  ANSWER_TYPED_SYSTEM: "answer_typed_system",
  ANSWER_TYPED_USER: "answer_typed_user",
  /** The oldest turns of a conversation compacted into a summary (memory/Conversation). */
  CONVERSATION_SUMMARY_SYSTEM: "conversation_summary_system",
  CONVERSATION_SUMMARY_USER: "conversation_summary_user",
  EVAL_RUBRIC_SYSTEM: "eval_rubric_system",
  EVAL_RUBRIC_USER: "eval_rubric_user"
} as const
export type PromptId = (typeof PromptId)[keyof typeof PromptId]
export const ALL_PROMPT_IDS: ReadonlyArray<PromptId> = Object.values(PromptId)

/** The prompts whose live text is the run's answer as it is written (its text, or a typed answer's JSON). */
export const ANSWER_PROMPTS: ReadonlyArray<string> = [PromptId.ANSWER_SYNTHESIS_USER, PromptId.ANSWER_TYPED_USER]
