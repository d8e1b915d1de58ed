import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runTask } from "../../src/index.js"
import { offline } from "../support/engine.js"

describe("the offline model through the library API", () => {
  it.effect("converges on (17 + 25) * 3 with an answer containing 126", () =>
    Effect.gen(function*() {
      const result = yield* runTask({ task: "Compute (17 + 25) * 3 and explain the result", mode: "FULL" })
      expect(result.status).toBe("CONVERGED")
      expect(result.converged).toBe(true)
      expect(result.model).toBe("offline")
      expect(result.finalAnswer?.answerText).toContain("126")
      expect(result.finalAnswer?.answerText).not.toContain("offline") // labeled where shown (#60 item 8)
      expect(result.history.passes.map((p) => p.phases)).toEqual([["PLAN"], ["EXECUTE", "EVALUATE"]])
      const tool = result.history.passes[1]!.executionResults["s1"]!.toolResult
      expect(tool).toEqual({ expression: "(17 + 25) * 3", value: 126 })
    }).pipe(Effect.provide(offline)))
})

describe("honest answers (#14.5)", () => {
  it.effect("the offline stand-in does not claim convergence on a task it cannot do", () =>
    Effect.gen(function*() {
      const result = yield* runTask({ task: "What is the capital of France?", mode: "FULL", budget: { ttl: 2 } })
      expect(result.status).toBe("NOT_CONVERGED")
      expect(result.converged).toBe(false)
      const step = result.plan!.steps[0]!
      expect(step).toMatchObject({ status: "invalid", clarityState: "BLOCKED" })
      expect(step.stepOutput).toContain("has no knowledge of its own")
      expect(result.finalAnswer?.label).not.toBe("converged")
    }).pipe(Effect.provide(offline)))
})
