import { PromptId } from "./PromptId.js"

/** The text of every prompt. `{{field}}` is replaced by the input's field (objects as JSON). */
export const templates: Record<PromptId, string> = {
  [PromptId.PLAN_GENERATION_SYSTEM]:
    "You are the planner of a reasoning engine. Break a task into a short sequence of concrete, actionable steps. " +
    "Each step has a unique stepId, a description with a specific verb and object, optional tool and toolInput " +
    "(only tools from the given list), and dependencies on earlier steps. A string in toolInput may use an earlier " +
    "step's result: {{<stepId>}} is that step's result (its tool's value, or its output text) and " +
    "{{<stepId>.<field>}} a field of its tool's output; the step must depend on that step. Example: s1 " +
    "{\"tool\": \"calculator\", \"toolInput\": {\"expression\": \"17 + 25\"}}, then s2 {\"tool\": \"calculator\", " +
    "\"toolInput\": {\"expression\": \"{{s1.value}} * 3\"}, \"dependencies\": [\"s1\"]}. Answer with JSON only.",
  [PromptId.PLAN_GENERATION_USER]:
    "Task:\n{{request}}\n\nAvailable tools:\n{{tools}}\n\nReasoning mode: {{reasoningMode}}\n" +
    "What went wrong in earlier attempts (may be empty):\n{{escalationContext}}\n\n" +
    "Return {\"goal\": string, \"steps\": [{\"stepId\", \"description\", \"tool\"?, \"toolInput\"?, \"dependencies\"?, \"provides\"?}]}.",
  [PromptId.REASONING_STEP_SYSTEM]:
    "You execute one step of a plan. Use the context from earlier steps and the tool result if any. " +
    "Say CLEAR when the step is done, PARTIALLY_CLEAR when it is done with gaps, BLOCKED when it cannot be done. Answer with JSON only.",
  [PromptId.REASONING_STEP_USER]:
    "Task: {{request}}\nPlan goal: {{planGoal}}\nStep {{stepIndex}} of {{totalSteps}} ({{stepId}}): {{stepDescription}}\n" +
    "Pass {{passNumber}}, phase {{phase}}, TTL remaining {{ttlRemaining}}, correlation {{correlationId}}\n" +
    "Context from earlier steps:\n{{incomingContext}}\nTool used: {{toolName}}\nTool result: {{toolResult}}\nMemory: {{memoryContext}}\n\n" +
    "Return {\"stepOutput\": string, \"clarityState\": \"CLEAR\"|\"PARTIALLY_CLEAR\"|\"BLOCKED\", \"handoffToNext\": string}.",
  [PromptId.VALIDATION_SEMANTIC_SYSTEM]:
    "You review plans and their execution for semantic problems: vague steps (specificity), steps unrelated to the goal (relevance), " +
    "broken ordering or contradictions (consistency), tools or operations that do not exist (hallucination), and steps whose " +
    "description says one thing while the tool does another (do_say_mismatch). You are advisory. Answer with JSON only.",
  [PromptId.VALIDATION_SEMANTIC_USER]:
    "Task: {{request}}\nArtifact: {{artifactType}}\nPlan:\n{{plan}}\nTools: {{tools}}\nFinal answer: {{finalAnswer}}\n" +
    "Issues already found by deterministic checks:\n{{knownIssues}}\n\n" +
    "Return {\"issues\": [{\"type\", \"severity\": \"LOW\"|\"MEDIUM\"|\"HIGH\"|\"CRITICAL\", \"description\", \"stepId\"?, \"proposedRepair\"?}]}.",
  [PromptId.CONVERGENCE_ASSESSMENT_SYSTEM]:
    "You decide whether a task is finished: complete (every part of the goal addressed), coherent (no contradictions), and " +
    "consistent (plan, executed steps and results agree). Answer with JSON only.",
  [PromptId.CONVERGENCE_ASSESSMENT_USER]:
    "Task: {{request}}\nPlan and step outputs:\n{{plan}}\nValidation: {{validationSummary}}\n" +
    "Thresholds: completeness {{completenessThreshold}}, coherence {{coherenceThreshold}}\n\n" +
    "Return {\"converged\", \"completenessScore\", \"coherenceScore\", \"consistencyAlignment\": {name: bool}, \"reasoning\", \"confidence\", \"reasonCodes\"?, \"detectedIssues\"?}.",
  [PromptId.TASKPROFILE_INFERENCE_SYSTEM]:
    "You profile tasks: reasoningDepth 1-5, informationSufficiency 0-1, expectedToolUsage none|minimal|moderate|extensive, " +
    "outputBreadth narrow|moderate|broad, confidenceRequirement low|medium|high, and rawInference explaining each value. Answer with JSON only.",
  [PromptId.TASKPROFILE_INFERENCE_USER]: "Task:\n{{request}}\nContext: {{context}}\n\nReturn the profile as JSON.",
  [PromptId.TASKPROFILE_UPDATE_SYSTEM]:
    "You revise a task profile at a pass boundary from what the engine learned: validation issues, convergence failures and " +
    "refinement needs. The profile may go down as well as up. Answer with JSON only.",
  [PromptId.TASKPROFILE_UPDATE_USER]:
    "Task: {{request}}\nCurrent profile: {{currentProfile}}\nPass: {{passNumber}}\nValidation issues: {{validationIssueCount}}\n" +
    "Convergence failures: {{convergenceFailures}}\nRefinements needed: {{refinementsNeeded}}\n\nReturn the revised profile and adjustmentReason as JSON.",
  [PromptId.RECURSIVE_PLAN_GENERATION_USER]:
    "Task: {{request}}\nGoal: {{goal}}\nTools: {{tools}}\nDepth level: {{depthLevel}}\n\nReturn a declarative plan {\"goal\", \"steps\"} as JSON.",
  [PromptId.RECURSIVE_SUBPLAN_GENERATION_USER]:
    "Task: {{request}}\nDecompose this step into substeps:\n{{parentStep}}\nDepth level: {{depthLevel}}\nTools: {{tools}}\n\n" +
    "Return {\"subplanGoal\", \"substeps\": [{\"stepId\", \"description\", \"tool\"?, \"toolInput\"?, \"dependencies\"?}]}.",
  [PromptId.RECURSIVE_REFINEMENT_SYSTEM]:
    "You refine plans. Change only the fragments that need it; never change a step that already ran (frozen). Actions: ADD, MODIFY, " +
    "REMOVE, REPLACE, SUBPLAN_CREATE, STEP_MARK_INVALID, each with a justification. Plans stay declarative data. A toolInput " +
    "string may use an earlier step's result as {{<stepId>}} or a field of its tool's output as {{<stepId>.<field>}} (the step " +
    "must depend on it). Answer with JSON only.",
  [PromptId.RECURSIVE_REFINEMENT_USER]:
    "Task: {{request}}\nPlan:\n{{plan}}\nIssues:\n{{issues}}\nConvergence reasons: {{convergenceReasons}}\nTools: {{tools}}\n" +
    "Frozen (already executed) steps: {{frozenStepIds}}\nGuidance from the user (follow it; may be empty): {{guidance}}\n\n" +
    "Return {\"actions\": [...], \"followUpQuestions\"?: [string]}.",
  [PromptId.SUPERVISOR_REPAIR_SYSTEM]:
    "You repair malformed artifacts so they satisfy a schema, changing as little as possible. Answer with JSON only.",
  [PromptId.SUPERVISOR_REPAIR_JSON_USER]:
    "This answer failed to decode:\n{{raw}}\nError:\n{{decodeError}}\nExpected JSON Schema:\n{{expectedSchema}}\n\n" +
    "Return {\"repairedJson\": \"<the corrected JSON document as a string>\"}.",
  [PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER]:
    "Tool {{tool}} ({{toolDescription}}) rejected its input.\nInput schema: {{inputSchema}}\nInput: {{badInput}}\nError: {{decodeError}}\n\n" +
    "Return {\"toolInput\": <corrected input>}.",
  [PromptId.SUPERVISOR_REPAIR_PLAN_USER]:
    "Task: {{request}}\nThis plan breaks a structural rule:\n{{plan}}\nRule broken: {{violation}}\n\nReturn the corrected plan {\"goal\", \"steps\"}.",
  [PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER]:
    "The step \"{{stepDescription}}\" names tool {{missingTool}}, which does not exist. Available tools: {{tools}}\n\n" +
    "Return {\"replacementTool\": string | null, \"justification\": string}.",
  [PromptId.ANSWER_SYNTHESIS_SYSTEM]:
    "You write the final answer of a run from its executed steps. Be faithful to the step outputs; cite the steps you used. " +
    "When the run did not converge, say so. Answer with JSON only.",
  [PromptId.ANSWER_SYNTHESIS_USER]:
    "Task: {{request}}\nStatus: {{label}} (converged: {{convergenceStatus}}, passes: {{totalPasses}}, TTL remaining: {{ttlRemaining}})\n" +
    "Executed steps:\n{{executionResults}}\nThe answer text must: {{answerRequirements}}\n\nReturn {\"answerText\", \"confidence\", \"usedStepIds\", \"notes\"?}."
}

const placeholder = /\{\{(\w+)\}\}/g

export const placeholders = (template: string): Array<string> => [...template.matchAll(placeholder)].map((m) => m[1]!)

const show = (value: unknown): string =>
  value === undefined || value === null
    ? "(none)"
    : typeof value === "string"
    ? (value === "" ? "(none)" : value)
    : JSON.stringify(value)

export const renderTemplate = (template: string, input: Readonly<Record<string, unknown>>): string =>
  template.replace(placeholder, (_, name: string) => show(input[name]))
