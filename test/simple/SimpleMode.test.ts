import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runTask } from "../../src/index.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { errorSignature, summarizeFailures } from "../../src/simple/SimpleMode.js"
import { scripted } from "../support/engine.js"
import { convergingScript, noRefinement, planOut, verdict } from "../support/scripts.js"

// a task the text signals call vague ("something"): each iteration is judged by the (scripted) model's assessment,
// not by the checks alone (Traffic.test.ts covers the checks deciding)
const task = "Compute 6 * 7 and explain something about it"
const failing = (times: number) => [...Array.from({ length: times }, () => verdict(false)), verdict(true)]

// two plans in turn: an iteration that changes the plan is not a repeat of the one before
const planA = planOut([{
  id: "s1",
  d: "Compute 6 * 7 with the calculator",
  tool: "calculator",
  input: { expression: "6 * 7" }
}])
const planB = planOut([{
  id: "s1",
  d: "Compute 7 * 6 with the calculator",
  tool: "calculator",
  input: { expression: "7 * 6" }
}])

describe("simple mode with auto-escalation", () => {
  it.effect("ends on the first iteration that passes its tests", () =>
    Effect.gen(function*() {
      const { layer, calls } = scripted({ ...convergingScript(), [PromptId.CONVERGENCE_ASSESSMENT_USER]: failing(1) }, {
        fallback: false
      })
      const r = yield* runTask({ task }).pipe(Effect.provide(layer))
      expect(r.mode).toBe("AUTO")
      expect(r.status).toBe("CONVERGED")
      expect(r.simple.iterations.map((i) => i.testStatus)).toEqual(["failed", "passed"])
      expect(r.simple.iterations[0]!.failedTests.length).toBeGreaterThan(0)
      expect(r.simple.escalation).toBeUndefined()
      // shallow: no profiling, no refinement
      expect(calls.some((c) =>
        c.promptId === PromptId.TASKPROFILE_INFERENCE_USER || c.promptId === PromptId.RECURSIVE_REFINEMENT_USER
      )).toBe(false)
      expect(r.history.passes.map((p) =>
        p.passNumber
      )).toEqual([0, 1, 2, 3])
    }))

  it.effect("exhausted iterations escalate to full mode, whose planning prompt receives the failure summary", () =>
    Effect.gen(function*() {
      const { layer, calls } = scripted({
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [planA, planB, planA, planA],
        [PromptId.CONVERGENCE_ASSESSMENT_USER]: failing(3),
        [PromptId.RECURSIVE_REFINEMENT_USER]: [noRefinement]
      }, { fallback: false })
      const r = yield* runTask({ task, simpleIterations: 3 }).pipe(Effect.provide(layer))
      expect(r.simple.iterations).toHaveLength(3)
      expect(r.simple.escalation).toMatchObject({ iterationsRun: 3, reason: expect.stringContaining("3 iteration") })
      expect(r.simple.escalation!.remainingBudget.llmCalls).toBeGreaterThan(0)
      const plans = calls.filter((c) => c.promptId === PromptId.PLAN_GENERATION_USER).map((c) =>
        c.input as { escalationContext?: string }
      )
      expect(plans).toHaveLength(4)
      expect(plans[3]!.escalationContext).toContain("3 simple iterations did not pass")
      expect(plans[3]!.escalationContext).toBe(r.escalationContext)
      expect(calls.some((c) => c.promptId === PromptId.TASKPROFILE_INFERENCE_USER)).toBe(true)
      expect(r.status).toBe("CONVERGED")
      expect(r.history.finalResult.metadata.status).toBe("CONVERGED")
    }))

  it.effect("escalate=false stops after N iterations with the failure summary", () =>
    Effect.gen(function*() {
      const { layer } = scripted({ ...convergingScript(), [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)] }, {
        fallback: false
      })
      const r = yield* runTask({ task, simpleIterations: 2, escalate: false }).pipe(Effect.provide(layer))
      expect(r.status).toBe("NOT_CONVERGED")
      expect(r.simple.iterations).toHaveLength(2)
      expect(r.simple.escalation).toBeUndefined()
      expect(r.simple.failureSummary).toMatchObject({
        totalIterations: 2,
        finalTestState: expect.arrayContaining(["model:incomplete"])
      })
      const simple = yield* runTask({ task, mode: "SIMPLE", simpleIterations: 2 }).pipe(
        Effect.provide(
          scripted({ ...convergingScript(), [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)] }, {
            fallback: false
          }).layer
        )
      )
      expect(simple.simple.escalation).toBeUndefined()
      expect(simple.simple.iterations).toHaveLength(2)
    }))

  it.effect("an iteration that repeats the last one's failure (same plan, same failure) ends the iterations", () =>
    Effect.gen(function*() {
      const { layer } = scripted({ ...convergingScript(), [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)] }, {
        fallback: false
      })
      const r = yield* runTask({ task, simpleIterations: 5, escalate: false }).pipe(Effect.provide(layer))
      expect(r.simple.iterations.map((i) => i.changeSummary.slice(0, 20))).toEqual([
        "plan of 2 step(s): C",
        "same plan as the pre"
      ])
    }))

  it.effect("FULL skips simple mode", () =>
    Effect.gen(function*() {
      const { layer } = scripted(convergingScript(), { fallback: false })
      const r = yield* runTask({ task, mode: "FULL" }).pipe(Effect.provide(layer))
      expect(r.simple.iterations).toEqual([])
      expect(r.mode).toBe("FULL")
    }))

  it.effect("an iteration that ends in an error is recorded with its message", () =>
    Effect.gen(function*() {
      const { layer } = scripted({
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [
          planOut([{
            id: "s1",
            d: "Compute 6 / 0 with the calculator",
            tool: "calculator",
            input: { expression: "6 / 0" }
          }]),
          planOut([{
            id: "s1",
            d: "Compute 6 * 7 with the calculator",
            tool: "calculator",
            input: { expression: "6 * 7" }
          }])
        ],
        [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(true)]
      }, { fallback: false })
      const r = yield* runTask({ task }).pipe(Effect.provide(layer))
      expect(r.simple.iterations[0]).toMatchObject({
        testStatus: "error",
        errorMessages: [expect.stringContaining("division by zero")]
      })
      expect(r.simple.iterations[1]).toMatchObject({
        testStatus: "passed",
        changeSummary: expect.stringContaining("new plan")
      })
    }))

  it.effect("with no budget left after simple mode, the run stops with a budget failure and the summary", () =>
    Effect.gen(function*() {
      const { layer } = scripted({ ...convergingScript(), [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)] }, {
        fallback: false
      })
      const r = yield* runTask({ task, simpleIterations: 3, budget: { maxSteps: 2 } }).pipe(Effect.provide(layer))
      expect(r.terminationReason).toBe("budget_exhausted")
      expect(r.simple.escalation).toBeUndefined()
      expect(r.simple.failureSummary?.summary).toContain("did not pass")
      expect(r.error).toContain("no budget left to escalate")
      expect(r.usage.steps).toBe(2)
    }))
})

describe("failure summary", () => {
  it("counts the same error once, whatever its numbers and ids", () => {
    expect(errorSignature("s3: tool calculator timed out after 1000 ms")).toBe(
      errorSignature("s7: tool calculator timed out after 250 ms")
    )
    const summary = summarizeFailures([1, 2, 3].map((i) => ({
      iteration: i,
      changeSummary: "plan",
      testStatus: "error" as const,
      failedTests: ["incomplete"],
      errorMessages: [`s${i}: division by zero in "${i} / 0"`],
      durationMs: 10,
      costUsd: 0.01
    })))
    expect(summary.uniqueErrors).toHaveLength(1)
    expect(summary.uniqueErrors[0]!.count).toBe(3)
    expect(summary.totalCostUsd).toBeCloseTo(0.03)
    expect(summary.summary.length).toBeLessThanOrEqual(1000)
    expect(summary.summary).toContain("incomplete (3×)")
  })
})
