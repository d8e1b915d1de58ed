import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as engine from "../../src/convergence/ConvergenceEngine.js"
import { ConvergenceCriteria } from "../../src/convergence/Criteria.js"
import { ConvergenceAssessment, makeReport } from "../../src/domain/Evaluation.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { scriptedLlm } from "../support/engine.js"
import { step } from "../support/fixtures.js"

const criteria = (c: object = {}) => Schema.decodeUnknownSync(ConvergenceCriteria)(c)
const done = (over: object = {}) => ({
  goal: "Compute 2 + 3",
  steps: [
    step("s1", 1, 2, { status: "complete", stepOutput: "2 + 3 = 5" }),
    step("s2", 2, 2, { status: "complete", stepOutput: "the sum is 5", ...over })
  ]
})
const llmOf = (output: object) => scriptedLlm({ [PromptId.CONVERGENCE_ASSESSMENT_USER]: [{ output }] })
const assess = (input: Partial<Parameters<typeof engine.assess>[0]>) =>
  engine.assess({
    request: "Compute 2 + 3",
    plan: done(),
    report: makeReport("v", "cross_phase", []),
    criteria: criteria(),
    candidateAnswer: "the sum is 5",
    ...input
  })

describe("ConvergenceEngine", () => {
  it.effect("converges when complete, coherent and consistent; the assessment decodes", () =>
    Effect.gen(function*() {
      const a = yield* assess({})
      expect(a.converged).toBe(true)
      expect(a.reasonCodes).toEqual(["complete"])
      expect(() => Schema.decodeUnknownSync(ConvergenceAssessment)(a)).not.toThrow()
    }))

  it.effect("conflicting criteria: complete but incoherent → not converged, naming the failing criterion (FR-068)", () =>
    Effect.gen(function*() {
      const report = makeReport("v", "cross_phase", [{
        issueId: "i",
        type: "consistency",
        severity: "CRITICAL",
        description: "s2 contradicts s1",
        location: { stepId: "s2" }
      }])
      const a = yield* assess({ report })
      expect(a.converged).toBe(false)
      expect(a.scores.completenessScore).toBe(1)
      expect(a.reasonCodes).toEqual(expect.arrayContaining(["incoherent", "contradiction_detected"]))
      expect(a.reasonCodes).not.toContain("incomplete")
    }))

  it.effect("a failed or invalid step the answer depends on prevents convergence", () =>
    Effect.gen(function*() {
      const a = yield* assess({ plan: done({ status: "failed", error: "tool failed" }) })
      expect(a.converged).toBe(false)
      expect(a.reasonCodes).toEqual(expect.arrayContaining(["failed_steps", "incomplete"]))
      // even if the model says it converged
      const b = yield* assess({
        plan: done({ status: "invalid", clarityState: "BLOCKED" }),
        llm: llmOf({
          converged: true,
          completenessScore: 1,
          coherenceScore: 1,
          consistencyAlignment: {},
          reasoning: "fine",
          confidence: 1
        })
      })
      expect(b.converged).toBe(false)
    }))

  it.effect("the model's stricter judgement counts; its reason codes are kept", () =>
    Effect.gen(function*() {
      const a = yield* assess({
        llm: llmOf({
          converged: false,
          completenessScore: 0.4,
          coherenceScore: 0.9,
          consistencyAlignment: {},
          reasoning: "misses the explanation",
          confidence: 0.7,
          reasonCodes: ["missing_explanation"]
        })
      })
      expect(a.converged).toBe(false)
      expect(a.scores.completenessScore).toBe(0.4)
      expect(a.reasonCodes).toEqual(expect.arrayContaining(["incomplete", "model:missing_explanation"]))
      expect(a.explanation).toContain("misses the explanation")
    }))

  it.effect("answerMatches runs in linear time: a backtracking pattern cannot stall the thread (#15.1)", () =>
    Effect.gen(function*() {
      // with a backtracking engine this is 2^60 steps (the test would never end); RE2 answers at once
      const answer = "a".repeat(60) + "!"
      const a = yield* assess({ criteria: criteria({ answerMatches: "^(a+)+$" }), candidateAnswer: answer })
      expect(a.reasonCodes).toContain("answer_does_not_match")
      const ok = yield* assess({ criteria: criteria({ answerMatches: "^(a+)+!$" }), candidateAnswer: answer })
      expect(ok.reasonCodes).not.toContain("answer_does_not_match")
      // what RE2 does not support is refused when the criteria are decoded, with the reason
      const refused = Schema.decodeUnknownEither(ConvergenceCriteria)({ answerMatches: "(?=5)\\d" })
      expect(refused._tag).toBe("Left")
      expect(String(refused._tag === "Left" && refused.left.message)).toContain(
        "answerMatches is not a pattern the linear-time engine (RE2 syntax) accepts"
      )
      expect(String(refused._tag === "Left" && refused.left.message)).toContain("look-around")
    }))

  it.effect("custom criteria: thresholds, regex, JSON Schema, mentions, required reason codes", () =>
    Effect.gen(function*() {
      expect((yield* assess({ criteria: criteria({ answerMatches: "\\b5\\b" }) })).converged).toBe(true)
      expect((yield* assess({ criteria: criteria({ answerMatches: "^42$" }) })).reasonCodes).toContain(
        "answer_does_not_match"
      )
      expect((yield* assess({ criteria: criteria({ answerMentions: ["sum", "product"] }) })).reasonCodes).toContain(
        "answer_missing_terms:product"
      )
      const schema = { type: "object", required: ["sum"], properties: { sum: { type: "number" } } }
      expect(
        (yield* assess({ criteria: criteria({ answerSchema: schema }), candidateAnswer: "{\"sum\": 5}" })).converged
      ).toBe(true)
      expect(
        (yield* assess({ criteria: criteria({ answerSchema: schema }), candidateAnswer: "{\"sum\": \"five\"}" }))
          .reasonCodes
      ).toContain("answer_schema_mismatch")
      const partial = done({ clarityState: "PARTIALLY_CLEAR" })
      expect((yield* assess({ plan: partial })).reasonCodes).toContain("incomplete")
      expect((yield* assess({ plan: partial, criteria: criteria({ completenessThreshold: 0.7 }) })).converged).toBe(
        true
      )
      expect((yield* assess({ criteria: criteria({ requiredReasonCodes: ["verified"] }) })).reasonCodes).toContain(
        "required_reason_code_missing:verified"
      )
    }))

  it.effect("a model failure leaves the deterministic assessment, said in the explanation", () =>
    Effect.gen(function*() {
      const m = Scripted.make({ [PromptId.CONVERGENCE_ASSESSMENT_USER]: [{ error: { status: 500 } }] })
      const a = yield* assess({ llm: { label: "s", generate: (c, i, o) => m.service.generate(c, i, o) } })
      expect(a.converged).toBe(true)
      expect(a.explanation).toContain("model assessment unavailable")
    }))
})
