import { textSignals } from "../domain/TextSignals.js"
import { resultOf } from "../record/References.js"

/**
 * Where a simple iteration (AUTO, SIMPLE) spends no model call: what the deterministic checks and a tool's result
 * decide alone. FULL makes every call of the loop (the mode a person picks, or AUTO escalates to, for depth).
 */

/** A step that asks for more than its tool's work: to interpret, explain, compare or choose among its results. */
const INTERPRETS =
  /\b(explain|interpret|compare|contrast|choose|pick|select|decide|summari[sz]e|analy[sz]e|describe|assess|judge|recommend|rank|justify|discuss|critique|why|how come|what does .* mean|tell (?:me|us) about|elaborate|comment)\b/i

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
  !INTERPRETS.test(description) && resultText(toolOutput).length <= READABLE_CHARS

/** A task the text signals call ambiguous or broad: its plan and its pass are reviewed by the model. */
export const needsReview = (task: string): boolean => {
  const signals = textSignals(task)
  return signals.vagueTerms > 0 || signals.sufficiency < 0.8
}
