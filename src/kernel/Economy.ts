import { asksMoreThanTool } from "../domain/TextSignals.js"
import { resultOf } from "../record/References.js"
import type { PassRecord, RunRecord } from "../record/RunRecord.js"

/**
 * Where a simple iteration (AUTO, SIMPLE) spends no model call: what the deterministic checks and a tool's result
 * decide alone. FULL makes every call of the loop (the mode a person picks, or AUTO escalates to, for depth).
 */

/** Past this length a tool's result needs reading (a document, a listing): the model reads it. */
const READABLE_CHARS = 2_000

/** A tool's result as a step's text: a plain value as it is, anything else as JSON. */
export const resultText = (toolOutput: unknown): string => {
  const value = resultOf({ stepId: "", status: "complete", stepOutput: "" }, toolOutput)
  return typeof value === "string" ? value : JSON.stringify(value) ?? ""
}

/**
 * Whether a step's tool result is its output, with no reasoning call: the step asks for no more than the tool's work
 * (nothing to interpret, explain, compare or choose) and the result is short enough to need no reading.
 */
export const toolSuffices = (description: string, toolOutput: unknown): boolean =>
  !asksMoreThanTool(description) && resultText(toolOutput).length <= READABLE_CHARS

/** A pass's failed steps, each as what it called and how it failed (numbers left out of the error). */
const failuresOf = (pass: PassRecord): Array<string> =>
  Object.entries(pass.executionResults).flatMap(([stepId, r]) => {
    if (r.status !== "failed") return []
    const step = pass.plan?.steps.find((s) => s.stepId === stepId)
    const called = step?.tool ? `${step.tool}(${JSON.stringify(step.toolInput ?? {})})` : "no tool"
    // a refined step is a new revision of it (s1 → s1.r2): the call and the error say whether it failed the same way
    return [`${called}: ${(r.error ?? "").replace(/\d+/g, "<n>")}`]
  }).sort()

/**
 * The pass failed as the one before it did: the same steps failing on the same calls with the same errors (a tool
 * that refuses the same input, a failure retrying cannot fix). Another pass would repeat it: the reason in words, or
 * undefined when the pass is not such a repeat.
 */
export const repeatedFailures = (record: RunRecord, passNumber: number): string | undefined => {
  const pass = record.passes.find((p) => p.passNumber === passNumber)
  const before = record.passes.find((p) => p.passNumber === passNumber - 1)
  if (!pass || !before) return undefined
  const now = failuresOf(pass)
  if (now.length === 0 || JSON.stringify(now) !== JSON.stringify(failuresOf(before))) return undefined
  const said = Object.entries(pass.executionResults).filter(([, r]) => r.status === "failed")
    .map(([stepId, r]) => `${stepId}: ${r.error ?? "failed"}`).join("; ")
  return `pass ${passNumber} failed as pass ${passNumber - 1} did (${said}): another pass would repeat it`
}
