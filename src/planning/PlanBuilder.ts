import { type Plan, planRuleViolation, type PlanStep } from "../domain/Plan.js"
import type { PlannedStep, PlanOutput } from "../prompts/Schemas.js"

/** A model's planned step as a pending PlanStep (index and total filled in later). */
export const toStep = (p: PlannedStep, index = 1, total = 1): PlanStep => ({
  stepId: p.stepId.trim(),
  stepIndex: index,
  totalSteps: total,
  description: p.description ?? "",
  ...(p.tool ? { tool: p.tool } : {}),
  ...(p.toolInput !== undefined ? { toolInput: p.toolInput } : {}),
  dependencies: [...(p.dependencies ?? [])],
  provides: [...(p.provides ?? [])],
  ...(p.answer !== undefined && p.answer.trim() !== "" && !p.tool ? { answer: p.answer } : {}),
  incomingContext: "",
  handoffToNext: "",
  stepOutput: "",
  status: "pending"
})

export const toPlan = (output: PlanOutput): Plan => ({
  goal: output.goal ?? "",
  steps: output.steps.map((s, i) => toStep(s, i + 1, output.steps.length)),
  ...(output.answer !== undefined && output.answer.trim() !== "" ? { answer: output.answer } : {})
})

/** The structural rule a generated plan breaks, if any. */
export const structuralViolation = (output: PlanOutput): string | undefined => {
  if ((output.goal ?? "").trim() === "") return "goal must be a non-empty string"
  if (output.steps.length === 0) return "a plan needs at least one step"
  const blank = output.steps.find((s) => s.stepId.trim() === "" || (s.description ?? "").trim() === "")
  if (blank) return `every step needs a stepId and a description (step ${JSON.stringify(blank.stepId)})`
  return planRuleViolation(toPlan(output))
}
