import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Tokenizer from "../../src/llm/Tokenizer.js"
import { runTask } from "../../src/run/Run.js"
import { offline, scripted } from "../support/engine.js"
import { convergingScript } from "../support/scripts.js"

// one file, in order: the tokenizer is loaded once per process and never unloaded
describe("the tokenizer (o200k_base: 65 MB, a quarter of a second to load) is loaded only for an exact count", () => {
  it.effect("a run whose model reports its usage, within a loose budget, never loads it", () =>
    Effect.gen(function*() {
      const result = yield* runTask({ task: "Compute (17 + 25) * 3 and explain the result", mode: "FULL" })
      expect(result.status).toBe("CONVERGED")
      expect(result.usage.llmCalls).toBeGreaterThan(3)
      expect(Tokenizer.isLoaded()).toBe(false)
    }).pipe(Effect.provide(offline)))

  it.effect("an answer that reports no usage is counted: then it loads", () =>
    Effect.gen(function*() {
      const result = yield* runTask({ task: "Compute 6 * 7 and explain it", mode: "FULL" })
      expect(result.usage.outputTokens).toBeGreaterThan(0)
      expect(Tokenizer.isLoaded()).toBe(true)
    }).pipe(Effect.provide(scripted(convergingScript(), { fallback: false }).layer)))
})
