import type { IssueType, Severity } from "../domain/Evaluation.js"
import type { ClarityState } from "../domain/Plan.js"
import { bool, defined, field, isRecord, oneOf, text, texts, unitScore, unwrap } from "./ModelShapes.js"

/** How models name issue types (validation prompt): in any case, with spaces or hyphens. */
const issueType = oneOf<IssueType>({
  specificity: "specificity",
  vague: "specificity",
  vagueness: "specificity",
  unspecific: "specificity",
  ambiguity: "specificity",
  ambiguous: "specificity",
  lackofspecificity: "specificity",
  relevance: "relevance",
  irrelevant: "relevance",
  irrelevance: "relevance",
  offtopic: "relevance",
  unrelated: "relevance",
  consistency: "consistency",
  inconsistent: "consistency",
  inconsistency: "consistency",
  contradiction: "consistency",
  contradictory: "consistency",
  ordering: "consistency",
  dependency: "consistency",
  hallucination: "hallucination",
  hallucinated: "hallucination",
  hallucinatedtool: "hallucination",
  nonexistenttool: "hallucination",
  unknowntool: "hallucination",
  fabrication: "hallucination",
  dosaymismatch: "do_say_mismatch",
  dosay: "do_say_mismatch",
  mismatch: "do_say_mismatch",
  toolmismatch: "do_say_mismatch",
  descriptionmismatch: "do_say_mismatch",
  saydomismatch: "do_say_mismatch",
  completeness: "completeness",
  incomplete: "completeness",
  incompleteness: "completeness",
  omission: "completeness",
  missingpart: "completeness"
})

const severity = oneOf<Severity>({
  critical: "CRITICAL",
  blocker: "CRITICAL",
  blocking: "CRITICAL",
  fatal: "CRITICAL",
  high: "HIGH",
  major: "HIGH",
  severe: "HIGH",
  error: "HIGH",
  important: "HIGH",
  medium: "MEDIUM",
  moderate: "MEDIUM",
  med: "MEDIUM",
  warning: "MEDIUM",
  warn: "MEDIUM",
  normal: "MEDIUM",
  low: "LOW",
  minor: "LOW",
  info: "LOW",
  trivial: "LOW",
  note: "LOW",
  suggestion: "LOW"
})

/** Every step an issue names: stepId, step_id, step, steps, a location (text, number or {stepId}), a target. */
const stepsOf = (issue: Readonly<Record<string, unknown>>): Array<string> => {
  const out: Array<string> = []
  const add = (v: unknown): void => {
    if (v === undefined || v === null) return
    if (Array.isArray(v)) return v.forEach(add)
    if (isRecord(v)) return add(field(v, "stepId", "step", "id", "stepIds", "steps"))
    const id = text(v)
    if (id !== undefined && id.trim() !== "" && !out.includes(id.trim())) out.push(id.trim())
  }
  add(field(issue, "stepId", "step", "stepIds", "steps", "affectedSteps", "affectedStep"))
  if (out.length === 0) add(field(issue, "location", "target", "where"))
  return out
}

/** A repair as text: given as text, or as an object ({action}, {description}, {suggestion}, {fix}, …). */
const repairOf = (v: unknown): string | undefined =>
  isRecord(v) ? text(field(v, "action", "description", "suggestion", "fix", "change", "repair") ?? v) : text(v)

/**
 * The validation answer: `{"issues": [...]}` (or the list alone, or under validationIssues/problems/findings); each
 * issue in any of the shapes above, one issue per step it names (never merged, never without its step). An issue
 * whose type cannot be read is kept aside in `unreadable`, for the run's advisories.
 */
export const normalizeValidation = (answer: unknown) => {
  const root = unwrap(answer, "issues", "validationIssues", "problems", "findings")
  const list = Array.isArray(root) ?
    root
    : isRecord(root) ?
    field(root, "issues", "validationIssues", "problems", "findings") ?? []
    : root
  if (!Array.isArray(list)) return answer
  const issues: Array<Record<string, unknown>> = []
  const unreadable: Array<string> = []
  for (const raw of list) {
    if (!isRecord(raw)) {
      unreadable.push(text(raw) ?? "")
      continue
    }
    const type = issueType(field(raw, "type", "issueType", "category", "kind"))
    if (type === undefined) {
      unreadable.push(JSON.stringify(raw))
      continue
    }
    const description = text(
      field(raw, "description", "message", "issue", "detail", "details", "explanation", "reason")
    )
    const shared = defined({
      type,
      severity: severity(field(raw, "severity", "level", "priority")) ?? "MEDIUM",
      description: description ?? "",
      proposedRepair: repairOf(field(raw, "proposedRepair", "repair", "suggestion", "fix", "recommendation"))
    })
    const steps = stepsOf(raw)
    if (steps.length === 0) issues.push(shared)
    for (const stepId of steps) issues.push({ ...shared, stepId })
  }
  return { issues, ...(unreadable.length > 0 ? { unreadable } : {}) }
}

const clarity = oneOf<ClarityState>({
  clear: "CLEAR",
  done: "CLEAR",
  complete: "CLEAR",
  partiallyclear: "PARTIALLY_CLEAR",
  partial: "PARTIALLY_CLEAR",
  partlyclear: "PARTIALLY_CLEAR",
  unclear: "PARTIALLY_CLEAR",
  blocked: "BLOCKED",
  cannotproceed: "BLOCKED",
  impossible: "BLOCKED"
})

/** A step's reasoning: clarity in any case ("partially clear"); the handoff is the output when the model gave none. */
export const normalizeReasoningStep = (answer: unknown) => {
  const o = unwrap(answer, "stepOutput", "output", "result")
  if (!isRecord(o)) return answer
  const stepOutput = text(field(o, "stepOutput", "output", "result", "answer", "content"))
  return defined({
    stepOutput,
    clarityState: clarity(field(o, "clarityState", "clarity", "state", "status")),
    handoffToNext: text(field(o, "handoffToNext", "handoff", "next", "summary")) ?? stepOutput
  })
}

/** The convergence verdict: booleans and scores as models write them ("yes", "85%", 85), reason codes as one text. */
export const normalizeConvergence = (answer: unknown) => {
  const o = unwrap(answer, "converged", "isConverged")
  if (!isRecord(o)) return answer
  const alignment = field(o, "consistencyAlignment", "consistency", "alignment")
  return defined({
    converged: bool(field(o, "converged", "isConverged", "done", "complete")),
    completenessScore: unitScore(field(o, "completenessScore", "completeness")),
    coherenceScore: unitScore(field(o, "coherenceScore", "coherence")),
    consistencyAlignment: isRecord(alignment) ?
      Object.entries(alignment).map(([name, v]) => ({ name, aligned: bool(v) ?? Boolean(v) }))
      : Array.isArray(alignment) ?
      alignment.map((a) =>
        isRecord(a)
          ? {
            name: text(field(a, "name", "aspect", "key")) ?? "",
            aligned: bool(field(a, "aligned", "ok", "value", "consistent")) ?? false
          }
          : { name: text(a) ?? "", aligned: true }
      )
      : [],
    reasoning: text(field(o, "reasoning", "explanation", "rationale", "reason")),
    confidence: unitScore(field(o, "confidence", "certainty")),
    reasonCodes: texts(field(o, "reasonCodes", "reasons", "codes")),
    detectedIssues: texts(field(o, "detectedIssues", "issues"))
  })
}

/**
 * A planned step: id as stepId/step_id/id (none: s1, s2… by its place), dependencies as depends_on/dependsOn, the
 * tool's input as input/arguments. A tool step without a description is described by its call ("calculator:
 * 19 * 21"): the planner prompt lets a call stand for its step, which saves the model writing both.
 */
export const normalizePlannedStep = (raw: unknown, index?: number): unknown => {
  if (!isRecord(raw)) return raw
  const tool = text(field(raw, "tool", "toolName", "tool_name"))
  const input = field(raw, "toolInput", "input", "arguments", "args", "parameters", "params")
  const toolInput = typeof input === "string" ? parsedOr(input) : input
  const described = text(field(raw, "description", "task", "action", "title", "name"))
  return defined({
    stepId: text(field(raw, "stepId", "id", "step")) ?? (index === undefined ? undefined : `s${index + 1}`),
    description: described ?? (tool === undefined ? undefined : callText(tool, toolInput)),
    tool: tool === undefined || tool.toLowerCase() === "none" || tool === "" ? undefined : tool,
    toolInput,
    dependencies: texts(field(raw, "dependencies", "dependsOn", "depends", "after", "requires")),
    provides: texts(field(raw, "provides", "outputs", "produces")),
    answer: tool === undefined ? text(field(raw, "answer")) : undefined
  })
}

/** A call as a step's text: the tool and its one value (an expression, a path), or its input as JSON. */
const callText = (tool: string, input: unknown): string => {
  const values = isRecord(input) ? Object.values(input) : [input]
  const only = values.length === 1 && typeof values[0] !== "object" ? String(values[0]) : JSON.stringify(input ?? {})
  return `${tool}: ${only}`
}

/** A tool input given as a JSON string is the object it spells. */
const parsedOr = (s: string): unknown => {
  try {
    const v = JSON.parse(s)
    return isRecord(v) ? v : s
  } catch {
    return s // not JSON: the tool's own schema says what is wrong with it
  }
}

export const normalizePlan = (answer: unknown) => {
  const o = Array.isArray(answer) ? { steps: answer } : unwrap(answer, "steps", "plan")
  if (!isRecord(o)) return answer
  const steps = field(o, "steps", "plan", "tasks")
  return defined({
    goal: text(field(o, "goal", "objective", "summary")),
    steps: Array.isArray(steps) ? steps.map((step, i) => normalizePlannedStep(step, i)) : steps,
    answer: text(field(o, "answer", "finalAnswer", "final_answer"))
  })
}

const actionType = oneOf(
  {
    add: "ADD",
    insert: "ADD",
    modify: "MODIFY",
    update: "MODIFY",
    edit: "MODIFY",
    remove: "REMOVE",
    delete: "REMOVE",
    replace: "REPLACE",
    subplancreate: "SUBPLAN_CREATE",
    subplan: "SUBPLAN_CREATE",
    decompose: "SUBPLAN_CREATE",
    stepmarkinvalid: "STEP_MARK_INVALID",
    markinvalid: "STEP_MARK_INVALID",
    invalidate: "STEP_MARK_INVALID"
  } as const
)

/** Refinement actions: the action's name in any case or as a synonym, target as target/stepId, the new step as step. */
export const normalizeRefinement = (answer: unknown) => {
  const o = Array.isArray(answer) ? { actions: answer } : unwrap(answer, "actions", "refinements")
  if (!isRecord(o)) return answer
  const actions = field(o, "actions", "refinements", "changes")
  return defined({
    actions: Array.isArray(actions) ?
      actions.map((a) => {
        if (!isRecord(a)) return a
        const newStep = field(a, "newStep", "step", "replacement")
        const substeps = field(a, "substeps", "subSteps", "steps")
        return defined({
          actionType: actionType(field(a, "actionType", "action", "type", "operation")),
          targetStepId: text(field(a, "targetStepId", "target", "stepId", "targetStep")),
          newStep: newStep === undefined ? undefined : normalizePlannedStep(newStep),
          subplanGoal: text(field(a, "subplanGoal", "goal")),
          substeps: Array.isArray(substeps) ? substeps.map((s) => normalizePlannedStep(s)) : undefined,
          justification: text(field(a, "justification", "reason", "rationale", "why")) ?? ""
        })
      })
      : actions,
    followUpQuestions: texts(field(o, "followUpQuestions", "questions"))
  })
}

const level = <A extends string>(values: ReadonlyArray<A>, synonyms: Readonly<Record<string, A>> = {}) =>
  oneOf<A>({ ...Object.fromEntries(values.map((v) => [v.toLowerCase(), v])), ...synonyms })
const toolUsage = level(["none", "minimal", "moderate", "extensive"], {
  low: "minimal",
  medium: "moderate",
  high: "extensive",
  heavy: "extensive"
})
const breadth = level(["narrow", "moderate", "broad"], {
  low: "narrow",
  medium: "moderate",
  high: "broad",
  wide: "broad"
})
const confidence = level(["low", "medium", "high"], { moderate: "medium" })

/** A task profile: levels in any case or as low/medium/high, depth and sufficiency as numbers or numeric texts. */
export const normalizeProfile = (answer: unknown) => {
  const o = unwrap(answer, "reasoningDepth", "depth")
  if (!isRecord(o)) return answer
  const depth = field(o, "reasoningDepth", "depth")
  return defined({
    reasoningDepth: typeof depth === "string" ? Number.parseInt(depth, 10) : depth,
    informationSufficiency: unitScore(field(o, "informationSufficiency", "sufficiency")),
    expectedToolUsage: toolUsage(field(o, "expectedToolUsage", "toolUsage")),
    outputBreadth: breadth(field(o, "outputBreadth", "breadth")),
    confidenceRequirement: confidence(field(o, "confidenceRequirement", "confidence")),
    rawInference: text(field(o, "rawInference", "reasoning", "explanation", "rationale")),
    adjustmentReason: text(field(o, "adjustmentReason", "reason", "adjustment"))
  })
}

/** A subplan: the substeps as steps are read (id, depends_on, arguments…), the goal as goal or subplanGoal. */
export const normalizeSubplan = (answer: unknown) => {
  const o = Array.isArray(answer) ? { substeps: answer } : unwrap(answer, "substeps", "steps")
  if (!isRecord(o)) return answer
  const substeps = field(o, "substeps", "steps", "subSteps")
  return defined({
    subplanGoal: text(field(o, "subplanGoal", "goal")),
    substeps: Array.isArray(substeps) ? substeps.map((s) => normalizePlannedStep(s)) : substeps
  })
}

/** The final answer: its text as answerText/answer/text, confidence as a score, the steps used as one id or a list. */
export const normalizeAnswer = (answer: unknown) => {
  const o = unwrap(answer, "answerText", "answer")
  if (!isRecord(o)) return answer
  return defined({
    answerText: text(field(o, "answerText", "answer", "text", "finalAnswer")),
    confidence: unitScore(field(o, "confidence", "certainty")),
    usedStepIds: texts(field(o, "usedStepIds", "usedSteps", "steps", "sources")) ?? [],
    notes: text(field(o, "notes", "note", "caveats"))
  })
}
