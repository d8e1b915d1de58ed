import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import { RunStore } from "../../src/store/RunStore.js"
import { scripted } from "../support/engine.js"
import { convergingScript, planOut } from "../support/scripts.js"

// each run plans (its script's plan), never starting from an earlier run's: the plans are what the test varies
const task = { task: "Compute 6 * 7 and explain it", mode: "FULL", reusePlans: false }
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
  it.effect("three finished runs of the same plan shape: the next forecast rests on them, from their stored figures", () =>
    Effect.gen(function*() {
      const first = yield* Effect.flatMap(prepare(task), (p) => p.execute)
      expect(first.forecast?.similarRuns).toBe(0)
      expect(first.forecast?.basis).toMatch(/no stored run like this one/)
      yield* Effect.flatMap(prepare(task), (p) => p.execute)
      // a dry run ends CANCELLED: not one that used anything to learn from
      const dry = yield* Effect.flatMap(prepare({ ...task, dryRun: true }), (p) => p.execute)
      expect(dry.status).toBe("CANCELLED")
      // two like it: fewer than the three calibration needs
      expect(dry.forecast?.similarRuns).toBe(0)
      yield* Effect.flatMap(prepare(task), (p) => p.execute)
      const later = yield* Effect.flatMap(prepare({ ...task, dryRun: true }), (p) => p.execute)
      expect(later.forecast?.similarRuns).toBe(3)
      expect(later.forecast?.basis).toMatch(/3 stored run\(s\) like this one/)
      expect(later.forecast?.passes.expected).toBe(1)
      // what calibration read: one row of figures per finished run, not their events
      const figures = yield* Effect.flatMap(RunStore, (s) => s.recentFigures(30))
      expect(figures).toHaveLength(3)
      expect(figures[0]).toMatchObject({ mode: "FULL", steps: 2, tools: "calculator", passes: 1 })
      expect(figures[0]!.outputTokensPerCall).toBeGreaterThan(0)
    }).pipe(Effect.provide(engine())))

  it.effect("a run stored before figures were kept (none in its row) is not read", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) yield* Effect.flatMap(prepare(task), (p) => p.execute)
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE runs SET figures = NULL`
      const next = yield* Effect.flatMap(prepare({ ...task, dryRun: true }), (p) => p.execute)
      expect(next.forecast?.similarRuns).toBe(0)
    }).pipe(Effect.provide(engine())))

  it.effect("runs of another plan shape (other tools) do not calibrate it", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) yield* Effect.flatMap(prepare(task), (p) => p.execute)
      // the fourth plan: as many steps, another tool
      const other = yield* Effect.flatMap(prepare({ ...task, dryRun: true }), (p) => p.execute)
      expect(other.plan?.steps.map((s) => s.tool)).toEqual(["memory.write", undefined])
      expect(other.forecast?.similarRuns).toBe(0)
    }).pipe(Effect.provide(engine([...Array(3).fill(calculatorPlan), storingPlan]))))
})
