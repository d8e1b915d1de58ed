import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { prepare } from "../../src/run/Run.js"
import { forecastScenarios as scenarios, priced } from "../support/forecastScenarios.js"

describe("the forecast's worst case (#35)", () => {
  for (const s of scenarios) {
    it.effect(`is never below what the run spent: ${s.name}`, () =>
      Effect.gen(function*() {
        const run = yield* prepare({ task: "Compute 6 * 7 and explain it", mode: "FULL", ...s.input })
        const result = yield* run.execute
        const forecast = result.forecast!
        expect(forecast, "a forecast was made").toBeDefined()
        const used = result.usage
        expect(used.llmCalls).toBeLessThanOrEqual(forecast.worstCase.llmCalls)
        expect(used.inputTokens + used.outputTokens).toBeLessThanOrEqual(forecast.worstCase.tokens)
        expect(used.costUsd).toBeLessThanOrEqual(forecast.worstCase.costUsd + 1e-12)
        expect(result.forecastError?.withinWorstCase).toBe(true)
      }).pipe(Effect.provide(priced(s.script))))
  }
})
