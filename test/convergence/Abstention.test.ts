import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { admitsMissingInformation } from "../../src/convergence/Abstention.js"
import { failedAnswerPredicates } from "../../src/convergence/AnswerPredicates.js"
import { ConvergenceCriteria } from "../../src/convergence/Criteria.js"

// Written as models phrase these answers, before looking at which words the check looks for.
const abstentions = [
  "I'm sorry, but I don't have enough information to determine the population of that town.",
  "The provided context does not contain the answer to this question, so it cannot be answered here.",
  "There is insufficient data to calculate the quarterly growth rate.",
  "Unfortunately, I cannot determine the capital without additional context.",
  "I don't know the answer to that.",
  "The answer cannot be determined from the given steps.",
  "No information about the 2031 election is available to me.",
  "I am unable to access real-time stock prices.",
  "The exchange rate is not provided in the context, so no conversion was made."
]
const answers = [
  "The capital of France is Paris.",
  "Without the discount, the total comes to $40; with it, $36.",
  "The data shows a 12% increase in sales over the quarter.",
  "No further steps are needed: (17 + 25) * 3 = 126.",
  "I cannot stress enough that the result, 126, was verified twice.",
  "The missing value in the sequence is 42.",
  "Context: the user asked for a sum. Answer: 42.",
  "We know the answer: 6 * 7 = 42, and the check confirms it."
]

describe("an answer that says it lacks the information asked for is not a result (#14.5)", () => {
  it("is recognised in the phrasings models use, and ordinary answers are not taken for it", () => {
    expect(abstentions.filter((a) => admitsMissingInformation(a) === undefined)).toEqual([])
    expect(answers.filter((a) => admitsMissingInformation(a) !== undefined)).toEqual([])
  })

  it("fails the answer predicates with answer_lacks_information, whatever the criteria", () => {
    const criteria = Schema.decodeUnknownSync(ConvergenceCriteria)({})
    expect(failedAnswerPredicates(criteria, abstentions[0]!)).toContain("answer_lacks_information")
    expect(failedAnswerPredicates(criteria, answers[0]!)).toEqual([])
  })
})
