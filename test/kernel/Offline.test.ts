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
      expect(result.finalAnswer?.answerText).toContain("offline")
      expect(result.history.passes.map((p) => p.phases)).toEqual([["PLAN"], ["EXECUTE", "EVALUATE"]])
      const tool = result.history.passes[1]!.executionResults["s1"]!.toolResult
      expect(tool).toEqual({ expression: "(17 + 25) * 3", value: 126 })
    }).pipe(Effect.provide(offline)))
})
