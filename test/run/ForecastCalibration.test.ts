import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import { scripted } from "../support/engine.js"
import { convergingScript, planOut } from "../support/scripts.js"

const task = { task: "Compute 6 * 7 and explain it", mode: "FULL" }
const calculatorPlan = planOut([
  { id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expression: "6 * 7" } },
  { id: "s2", d: "Explain the product of 6 and 7", deps: ["s1"] }
])
const storingPlan = planOut([
  { id: "s1", d: "Store 42 under product", tool: "memory.write", input: { key: "product", value: 42 } },
  { id: "s2", d: "Explain the product of 6 and 7", deps: ["s1"] }
])
/** The engine on a store of its own, its plans in order (the last repeats). */
const engine = (plans = [calculatorPlan]) =>
  Layer.mergeAll(
    scripted({ ...convergingScript(), [PromptId.PLAN_GENERATION_USER]: plans }).layer,
    Database.layer({ dataDir: "memory" })
  )

describe("the forecast calibrated by stored runs like this one (#35)", () => {
  it.effect("three finished runs of the same plan shape: the next forecast rests on them, read once a minute", () =>
    Effect.gen(function*() {
      const first = yield* Effect.flatMap(prepare(task), (p) => p.execute)
      expect(first.forecast?.similarRuns).toBe(0)
      expect(first.forecast?.basis).toMatch(/no stored run like this one/)
      yield* Effect.flatMap(prepare(task), (p) => p.execute)
      yield* Effect.flatMap(prepare(task), (p) => p.execute)
      // what was read is reused for a minute: still none
      const within = yield* Effect.flatMap(prepare({ ...task, dryRun: true }), (p) => p.execute)
      expect(within.forecast?.similarRuns).toBe(0)
      yield* TestClock.adjust("61 seconds")
      const later = yield* Effect.flatMap(prepare({ ...task, dryRun: true }), (p) => p.execute)
      // the three finished runs (the dry run ended CANCELLED: not one that used anything to learn from)
      expect(later.forecast?.similarRuns).toBe(3)
      expect(later.forecast?.basis).toMatch(/3 stored run\(s\) like this one/)
      expect(later.forecast?.passes.expected).toBe(1)
    }).pipe(Effect.provide(engine())))

  it.effect("runs of another plan shape (other tools) do not calibrate it", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) yield* Effect.flatMap(prepare(task), (p) => p.execute)
      yield* TestClock.adjust("61 seconds")
      // the fourth plan: as many steps, another tool
      const other = yield* Effect.flatMap(prepare({ ...task, dryRun: true }), (p) => p.execute)
      expect(other.plan?.steps.map((s) => s.tool)).toEqual(["memory.write", undefined])
      expect(other.forecast?.similarRuns).toBe(0)
    }).pipe(Effect.provide(engine([...Array(3).fill(calculatorPlan), storingPlan]))))
})
