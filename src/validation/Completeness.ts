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

/**
 * The numbers a text states, each with the word after it (not those inside a word: s1, o200k, v2.1); a thousands
 * separator is part of the number ("2,000" is 2000).
 */
const statedIn = (text: string): Array<{ readonly text: string; readonly value: number; readonly unit: string }> =>
  [...text.matchAll(/(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|[.,]\d)\s*(%|[a-z]+)?/gi)].map((m) => ({
    text: `${m[1]}${m[2] ?? ""}`,
    value: Number(`${m[1]!.replace(/,/g, "")}${m[2] ?? ""}`),
    unit: (m[3] ?? "").toLowerCase()
  }))

const MAGNITUDES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 }

/** Seconds in each unit of time (a month a twelfth of a year), by the words a task writes them with. */
const SECONDS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^(?:seconds?|secs?)$/, 1],
  [/^(?:minutes?|mins?)$/, 60],
  [/^(?:hours?|hrs?)$/, 3_600],
  [/^days?$/, 86_400],
  [/^weeks?$/, 604_800],
  [/^months?$/, 31_536_000 / 12],
  [/^quarters?$/, 31_536_000 / 4],
  [/^years?$/, 31_536_000],
  [/^decades?$/, 315_360_000]
]

/** A rate per year, month, … is also used per month, per quarter, per day (a yearly 6 % is 0.5 % a month). */
const PERIODS = [1, 4, 12, 52, 365]

/**
 * The forms a step may use a stated number in: itself; times its magnitude word (5 million: 5000000); a percentage as
 * a fraction, a growth or discount factor, and per shorter period (5 %: 0.05, 1.05, 0.95; 6 % a year: 0.005 a month);
 * a duration in any other unit of time (2 years: 24 months; 90 seconds: 1.5 minutes).
 */
const formsOf = (n: { readonly value: number; readonly unit: string }): Array<number> => {
  const forms = [n.value]
  const magnitude = MAGNITUDES[n.unit]
  if (magnitude !== undefined) forms.push(n.value * magnitude)
  if (n.unit === "%" || n.unit === "percent") {
    for (const per of PERIODS) {
      const rate = n.value / per
      forms.push(rate, rate / 100, 1 + rate / 100, 1 - rate / 100)
    }
  }
  const seconds = SECONDS.find(([words]) => words.test(n.unit))?.[1]
  if (seconds !== undefined) { for (const [, other] of SECONDS) forms.push((n.value * seconds) / other) }
  return forms
}

/**
 * A form of a stated number is the number a step wrote: a whole number exactly (the 1 of "5000000 * 1" is no growth
 * factor of 8 %), a decimal up to its written rounding (0.00417 for 5 % / 12).
 */
const same = (form: number, written: number) =>
  Number.isInteger(written)
    ? Math.abs(form - written) <= 1e-9 * Math.max(1, Math.abs(written))
    : Math.abs(form - written) <= 1e-3 * Math.abs(written)

/**
 * A number the task states that no step uses, in any of its forms (in its description or its tool's input): the plan
 * leaves that part of the task out ("What is 6 * 7 plus 3?" planned as 6 * 7 alone). One issue per number, on the
 * plan's last step.
 */
export const completeness = (request: string, plan: PlanLike): Array<Found> => {
  const last = plan.steps.at(-1)
  if (!last) return []
  const used = plan.steps.flatMap((s) =>
    statedIn(`${s.description} ${JSON.stringify(s.toolInput ?? {})}`).map((n) => n.value)
  )
  const stated = statedIn(request)
  const left = stated.filter((n, i) =>
    stated.findIndex((m) => m.text === n.text) === i && !formsOf(n).some((f) => used.some((u) => same(f, u)))
  )
  return left.map((n) =>
    issue(
      "completeness",
      "MEDIUM",
      last.stepId,
      `the task states ${n.text}, which no step uses: that part of the task is left out`,
      `add a step (or change one) that uses ${n.text} as the task says`
    )
  )
}
