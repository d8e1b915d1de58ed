import { messageOf } from "../support/Thrown.js"
import { admitsMissingInformation } from "./Abstention.js"
import { answerMatches } from "./AnswerPattern.js"
import type { ConvergenceCriteria } from "./Criteria.js"
import { ajv } from "./OutputSchema.js"

/** Compiles a JSON Schema; the message says why it is not one. */
export const compileSchema = (
  schema: object
): { ok: true; validate: (v: unknown) => boolean; errors: () => string } | { ok: false; message: string } => {
  try {
    const validate = ajv.compile(schema)
    return { ok: true, validate: (v) => validate(v) as boolean, errors: () => ajv.errorsText(validate.errors) }
  } catch (e) {
    return { ok: false, message: messageOf(e) }
  }
}

/** The answer predicates of the criteria that the answer fails, as reason codes. */
export const failedAnswerPredicates = (criteria: ConvergenceCriteria, answer: string): Array<string> => {
  const failed: Array<string> = []
  // always on: an answer that says it lacks the information asked for is no answer
  if (admitsMissingInformation(answer) !== undefined) failed.push("answer_lacks_information")
  if (criteria.answerMatches !== undefined && !answerMatches(criteria.answerMatches, answer)) {
    failed.push("answer_does_not_match")
  }
  const missing = criteria.answerMentions.filter((t) => !answer.toLowerCase().includes(t.toLowerCase()))
  if (missing.length > 0) failed.push(`answer_missing_terms:${missing.join(",")}`)
  if (criteria.answerSchema !== undefined) {
    const compiled = compileSchema(criteria.answerSchema)
    let json: unknown
    try {
      json = JSON.parse(
        answer.slice(answer.indexOf("{") >= 0 ? answer.indexOf("{") : 0, answer.lastIndexOf("}") + 1 || undefined)
      )
    } catch {
      json = undefined // not JSON: fails the schema below
    }
    if (!compiled.ok || json === undefined || !compiled.validate(json)) failed.push("answer_schema_mismatch")
  }
  return failed
}
