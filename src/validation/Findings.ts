/** What a deterministic check finds: an issue of a step, before it is numbered; the plan as the checks read it. */
import type { IssueType, Severity, ValidationIssue } from "../domain/Evaluation.js"
import type { PlanStep } from "../domain/Plan.js"

export interface PlanLike {
  readonly goal: string
  readonly steps: ReadonlyArray<
    Pick<PlanStep, "stepId" | "stepIndex" | "description" | "tool" | "toolInput" | "dependencies">
  >
}

export type Found = Omit<ValidationIssue, "issueId">

export const issue = (
  type: IssueType,
  severity: Severity,
  stepId: string,
  description: string,
  repair?: string
): Found => ({
  type,
  severity,
  description,
  location: { stepId },
  source: "deterministic",
  ...(repair ? { proposedRepair: { action: repair, target: stepId } } : {})
})
