import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { FinalAnswerFor } from "../../src/domain/Result.js"
import { extractive } from "../../src/kernel/AnswerSynthesis.js"

const step = (stepId: string, stepOutput: string) => ({
  stepId,
  description: `Step ${stepId}`,
  dependencies: [],
  status: "complete" as const,
  stepOutput,
  handoffToNext: stepOutput,
  stepIndex: 1,
  totalSteps: 2,
  executed: true
})

describe("the extractive answer", () => {
  // found by the property test: a step whose substeps all said nothing had the output "\n", and the answer made of
  // it was a whitespace-only text that its own schema refuses (the run died on a defect)
  it("never is whitespace: steps that said nothing are not quoted", () => {
    const input = {
      runId: "r",
      startedAt: 0,
      totalRefinements: 0,
      request: "Compute 2 + 3",
      plan: { goal: "g", steps: [step("s1", "\n"), step("s2", "  ")] },
      converged: false,
      label: "non-converged: tokens budget exhausted",
      totalPasses: 1,
      ttlRemaining: 0
    }
    const answer = extractive(input as any, "budget exhausted")
    expect(answer.answerText).toBe("No step completed for: Compute 2 + 3")
    expect(Schema.decodeUnknownEither(FinalAnswerFor(["s1", "s2"]))(answer)._tag).toBe("Right")
    const said = extractive({ ...input, plan: { goal: "g", steps: [step("s1", "\n"), step("s2", "5")] } } as any, "x")
    expect(said).toMatchObject({ answerText: "5", usedStepIds: ["s2"] })
  })
})
