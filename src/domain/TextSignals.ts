/** Deterministic signals read from the task text (FR-028, FR-034, FR-035). */
export interface TextSignals {
  readonly vagueTerms: number
  readonly questionMarks: number
  readonly requirements: number
  readonly missingDetails: number
  /** 0..1, lower when the text is vague or leaves details open. */
  readonly sufficiency: number
}

const VAGUE =
  /\b(something|stuff|things?|etc\.?|somehow|maybe|various|whatever|as needed|some|few|several|good|nice|better|appropriate|soon|later)\b/gi
const MISSING = /\b(it|this|that|them|those)\b(?!\s+\w+\s+(is|are|of))|\b(tbd|todo|unknown|unspecified|\?\?)\b/gi

export const textSignals = (text: string): TextSignals => {
  const vagueTerms = (text.match(VAGUE) ?? []).length
  const questionMarks = (text.match(/\?/g) ?? []).length
  const requirements = (text.match(/(^|\n)\s*(?:[-*\u2022]|\d+[.)])\s+/g) ?? []).length +
    (text.match(/\b(must|should|shall|need to|required)\b/gi) ?? []).length
  const missingDetails = text.trim().split(/\s+/).length < 4 ? 2 : (text.match(MISSING) ?? []).length > 3 ? 1 : 0
  const sufficiency = Math.max(
    0,
    Math.min(1, 1 - 0.12 * vagueTerms - 0.08 * Math.max(0, questionMarks - 1) - 0.2 * missingDetails)
  )
  return { vagueTerms, questionMarks, requirements, missingDetails, sufficiency: Math.round(sufficiency * 100) / 100 }
}

/** A step that asks for more than its tool's work: to interpret, explain, compare or choose among its results. */
const INTERPRETS =
  /\b(explain|interpret|compare|contrast|choose|pick|select|decide|summari[sz]e|analy[sz]e|describe|assess|judge|recommend|rank|justify|discuss|critique|why|how come|what does .* mean|tell (?:me|us) about|elaborate|comment)\b/i

/** Whether a step's description asks for more than its tool's work (a simple iteration then asks the model). */
export const asksMoreThanTool = (description: string): boolean => INTERPRETS.test(description)

/** A task the text signals call ambiguous or broad: a simple iteration's plan and pass are reviewed by the model. */
export const needsReview = (task: string): boolean => {
  const signals = textSignals(task)
  return signals.vagueTerms > 0 || signals.sufficiency < 0.8
}
