import { Either, Schema } from "effect"
import { compileAnswerPattern } from "./AnswerPattern.js"

const Unit = (name: string) =>
  Schema.Number.pipe(Schema.filter((n) => (n >= 0 && n <= 1) || `${name} must be between 0 and 1 (was ${n})`))

export const DEFAULT_CRITERIA = {
  completenessThreshold: 0.9,
  coherenceThreshold: 0.8,
  requireConsistency: true
} as const

/** Convergence criteria of a run: thresholds, required reason codes, and predicates on the answer. */
export const ConvergenceCriteria = Schema.Struct({
  completenessThreshold: Schema.optionalWith(Unit("completenessThreshold"), {
    default: () => DEFAULT_CRITERIA.completenessThreshold
  }),
  coherenceThreshold: Schema.optionalWith(Unit("coherenceThreshold"), {
    default: () => DEFAULT_CRITERIA.coherenceThreshold
  }),
  requireConsistency: Schema.optionalWith(Schema.Boolean, { default: () => DEFAULT_CRITERIA.requireConsistency }),
  requiredReasonCodes: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  answerMatches: Schema.optional(
    Schema.String.pipe(
      Schema.filter((s) => Either.match(compileAnswerPattern(s), { onLeft: (m) => m, onRight: () => true }), {
        jsonSchema: { format: "regex" }
      })
    ).annotations({ description: "converge only on an answer matching this regular expression (RE2 syntax)" })
  ),
  answerSchema: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  answerMentions: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})
export type ConvergenceCriteria = typeof ConvergenceCriteria.Type
export type ConvergenceCriteriaInput = typeof ConvergenceCriteria.Encoded
