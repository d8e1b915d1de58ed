/**
 * What an operator, an agent or a run says about guardrails: for each point of a run (`input`, `tool_call`,
 * `tool_result`, `output`), the checks that run there, in order. One JSON shape for the operator's file
 * (AEON_GUARDRAILS), a run's input (`guardrails`) and the library.
 */
import { Schema } from "effect"
import { isSupportedCountry } from "libphonenumber-js/min"
import { compileAnswerPattern } from "../convergence/AnswerPattern.js"

export const GUARDRAIL_POINTS = ["input", "tool_call", "tool_result", "output"] as const
export const GuardrailPoint = Schema.Literal(...GUARDRAIL_POINTS)
export type GuardrailPoint = typeof GuardrailPoint.Type

export const PII_KINDS = ["email", "phone", "card", "iban", "ssn", "ip"] as const
export const PiiKind = Schema.Literal(...PII_KINDS)
export type PiiKind = typeof PiiKind.Type

export const GuardrailAction = Schema.Literal("redact", "block")
export type GuardrailAction = typeof GuardrailAction.Type

/** A guardrail's name in its events and errors (its type when it has none). */
const name = Schema.optional(
  Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_.:-]{1,64}$/, {
    message: () => "a guardrail's name is 1-64 letters, digits, _ . : or -"
  }))
)

const Pii = Schema.Struct({
  type: Schema.Literal("pii"),
  name,
  action: GuardrailAction,
  /** The kinds looked for (default: all). */
  kinds: Schema.optional(Schema.Array(PiiKind).pipe(Schema.minItems(1))),
  /** Where a phone number without a country code is read as dialled (ISO 3166 code; default US). */
  region: Schema.optional(
    Schema.String.pipe(
      Schema.filter((r) => isSupportedCountry(r) || `region must be a two-letter country code like US or DE (was ${r})`)
    )
  )
})

const Secrets = Schema.Struct({ type: Schema.Literal("secrets"), name, action: GuardrailAction })

const Denylist = Schema.Struct({
  type: Schema.Literal("denylist"),
  name,
  action: GuardrailAction,
  /** Whole words or phrases, any case. */
  words: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)))),
  /** RE2 patterns (linear time: no pattern can stall the server). */
  patterns: Schema.optional(Schema.Array(
    Schema.String.pipe(Schema.filter((p) => {
      const compiled = compileAnswerPattern(p)
      return compiled._tag === "Right" || compiled.left.replace("answerMatches", "a denylist pattern")
    }))
  ))
}).pipe(
  Schema.filter((d) => (d.words?.length ?? 0) + (d.patterns?.length ?? 0) > 0 || "a denylist needs words or patterns")
)

const MaxLength = Schema.Struct({
  type: Schema.Literal("maxLength"),
  name,
  action: GuardrailAction,
  chars: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))
})

/** One built-in guardrail, as JSON. */
export const GuardrailSpec = Schema.Union(Pii, Secrets, Denylist, MaxLength)
export type GuardrailSpec = typeof GuardrailSpec.Type

const atMost = (n: number) => Schema.Array(GuardrailSpec).pipe(Schema.maxItems(n))

/** The guardrails of each point (the operator's file, an agent's, a run's). */
export const GuardrailsSpec = Schema.Struct({
  input: Schema.optional(atMost(20)),
  tool_call: Schema.optional(atMost(20)),
  tool_result: Schema.optional(atMost(20)),
  output: Schema.optional(atMost(20))
})
export type GuardrailsSpec = typeof GuardrailsSpec.Type

/** A guardrail's name in events and errors. */
export const specName = (spec: GuardrailSpec) => spec.name ?? spec.type
