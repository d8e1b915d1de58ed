import type { IssueType, Severity, ValidationIssue } from "../domain/Evaluation.js"
import type { PlanLike } from "./DeterministicChecks.js"

type Found = Omit<ValidationIssue, "issueId">

const issue = (type: IssueType, severity: Severity, stepId: string, description: string, repair: string): Found => ({
  type,
  severity,
  description,
  location: { stepId },
  source: "deterministic",
  proposedRepair: { action: repair, target: stepId }
})

/** Completeness: a part of the task the plan leaves out (checked against the task, which the plan checks do not see). */

/** The numbers a text states (not those inside a word: s1, o200k, v2.1). */
const numbersIn = (text: string): Array<string> =>
  [...text.matchAll(/(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)/g)].map((m) => m[0])

/**
 * A number the task states that no step uses (in its description or its tool's input): the plan leaves that part of
 * the task out ("What is 6 * 7 plus 3?" planned as 6 * 7 alone). One issue per number, on the plan's last step.
 */
export const completeness = (request: string, plan: PlanLike): Array<Found> => {
  const last = plan.steps.at(-1)
  if (!last) return []
  const numbers = plan.steps.flatMap((s) => numbersIn(`${s.description} ${JSON.stringify(s.toolInput ?? {})}`))
  // a percentage is used as a fraction too ("15 percent of 1000" computed as 1000 * 0.15)
  const used = new Set(numbers.flatMap((n) => [Number(n), Math.round(Number(n) * 100 * 1e9) / 1e9]))
  return [...new Set(numbersIn(request))].filter((n) => !used.has(Number(n))).map((n) =>
    issue(
      "completeness",
      "MEDIUM",
      last.stepId,
      `the task states ${n}, which no step uses: that part of the task is left out`,
      `add a step (or change one) that uses ${n} as the task says`
    )
  )
}
