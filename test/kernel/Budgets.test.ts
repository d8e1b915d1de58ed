import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema, TestClock } from "effect"
import * as Aeon from "../../src/Aeon.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { runTask } from "../../src/index.js"
import * as LanguageModel from "../../src/llm/LanguageModel.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import { tool } from "../../src/tools/ToolRegistry.js"
import { scripted } from "../support/engine.js"
import { convergingScript, planOut, reasoned } from "../support/scripts.js"

const task = "Compute 6 * 7 and explain it"
const written: Array<string> = []
const slowWrite = tool({
  name: "slow.write",
  description: "Writes a record to the ledger; takes five seconds and must not be cut in half.",
  input: Schema.Struct({ record: Schema.String }),
  output: Schema.Struct({ written: Schema.String }),
  timeoutMs: 60_000,
  idempotent: false,
  run: ({ record }) =>
    Effect.sleep("5 seconds").pipe(Effect.zipRight(Effect.sync(() => {
      written.push(record)
      return { written: record }
    })))
})
const sleepy = tool({
  name: "sleepy",
  description: "Waits one second and returns its label.",
  input: Schema.Struct({ label: Schema.String }),
  output: Schema.Struct({ label: Schema.String }),
  timeoutMs: 60_000,
  idempotent: true,
  run: ({ label }) => Effect.sleep("1 second").pipe(Effect.as({ label }))
})

const ledgerScript = () => ({
  ...convergingScript(),
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    {
      id: "s1",
      d: "Write the record 'paid' to the ledger with slow.write",
      tool: "slow.write",
      input: { record: "paid" }
    },
    { id: "s2", d: "Explain the ledger record", deps: ["s1"] }
  ])]
})

const eventsOf = (p: { events: { log: Effect.Effect<ReadonlyArray<RunEvent>> } }) => p.events.log

describe("deadline", () => {
  it.effect("during a tool call: the tool completes and its output is kept; the rest is abandoned", () =>
    Effect.gen(function*() {
      written.length = 0
      const { layer } = scripted(ledgerScript(), { fallback: false, tools: [slowWrite] })
      const p = yield* prepare({
        task: "Record the payment and explain it",
        mode: "FULL",
        budget: { deadlineMs: 3_000 }
      }).pipe(Effect.provide(layer))
      const fiber = yield* Effect.fork(p.execute)
      yield* TestClock.adjust("3 seconds")
      expect(written).toEqual([]) // deadline reached while the tool runs
      yield* TestClock.adjust("2 seconds")
      const r = yield* Fiber.join(fiber)
      expect(written).toEqual(["paid"])
      const events = yield* eventsOf(p)
      expect(events.find((e) => e._tag === "ToolInvoked")).toMatchObject({ output: { written: "paid" } })
      expect(events.find((e) => e._tag === "StepAbandoned")).toMatchObject({ stepId: "s1" })
      expect(events.some((e) => e._tag === "StepStarted" && e.stepId === "s2")).toBe(false)
      expect(r.terminationReason).toBe("budget_exhausted")
      expect(r.ttlExpiration).toMatchObject({
        expirationPoint: "mid_phase",
        exhausted: "deadline",
        partialResult: { toolResults: { s1: { written: "paid" } }, abandonedStepId: "s1" }
      })
      expect(r.finalAnswer?.notes).toContain("deadline")
    }))

  it.effect("during an LLM call: the call is aborted at the deadline", () =>
    Effect.gen(function*() {
      const { layer } = scripted({
        ...convergingScript(),
        [PromptId.REASONING_STEP_USER]: [{ ...reasoned("slow"), delayMs: 60_000 }]
      }, { fallback: false })
      const p = yield* prepare({ task, mode: "FULL", budget: { deadlineMs: 2_000 } }).pipe(Effect.provide(layer))
      const fiber = yield* Effect.fork(p.execute)
      yield* TestClock.adjust("2 seconds")
      const r = yield* Fiber.join(fiber)
      expect(r.terminationReason).toBe("budget_exhausted")
      expect(r.ttlExpiration?.exhausted).toBe("deadline")
      expect(r.ttlExpiration?.partialResult?.abandonedStepId).toBe("s1")
      const events = yield* eventsOf(p)
      expect(events.filter((e) => e._tag === "LlmCalled" && e.promptId === PromptId.REASONING_STEP_USER)).toHaveLength(
        0
      )
      expect(events.at(-1)!.at - events[0]!.at).toBeLessThanOrEqual(2_000)
    }))
})

describe("budgets are never crossed", () => {
  it.effect("maxLlmCalls: the call that would cross is not made", () =>
    Effect.gen(function*() {
      const { layer } = scripted(convergingScript(), { fallback: false })
      const r = yield* runTask({ task, mode: "FULL", budget: { maxLlmCalls: 4 } }).pipe(Effect.provide(layer))
      expect(r.terminationReason).toBe("budget_exhausted")
      expect(r.ttlExpiration?.exhausted).toBe("llmCalls")
      expect(r.usage.llmCalls).toBe(4)
      expect(r.finalAnswer?.notes).toContain("budget exhausted")
    }))

  it.effect("maxTokens", () =>
    Effect.gen(function*() {
      const { layer } = scripted(convergingScript(), { fallback: false })
      // (the whole run takes about 1,950 tokens: output caps are lowered to fit what is left, so 2,500 would do)
      const r = yield* runTask({ task, mode: "FULL", budget: { maxTokens: 1_200 } }).pipe(Effect.provide(layer))
      expect(r.ttlExpiration?.exhausted).toBe("tokens")
      expect(r.usage.inputTokens + r.usage.outputTokens).toBeLessThanOrEqual(1_200)
    }))

  it.effect("maxCostUsd, with a priced model", () =>
    Effect.gen(function*() {
      const base = Scripted.make(convergingScript())
      const priced = LanguageModel.make(
        "priced",
        { inputPerMillion: 1_000, outputPerMillion: 1_000 },
        base.service.complete
      )
      const layer = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel.LanguageModel, priced))
      const r = yield* runTask({ task, mode: "FULL", budget: { maxCostUsd: 1.5 } }).pipe(Effect.provide(layer))
      expect(r.ttlExpiration?.exhausted).toBe("cost")
      expect(r.usage.costUsd).toBeGreaterThan(0)
      expect(r.usage.costUsd).toBeLessThanOrEqual(1.5)
    }))

  it.effect("maxSteps", () =>
    Effect.gen(function*() {
      const { layer } = scripted(convergingScript(), { fallback: false })
      const r = yield* runTask({ task, mode: "FULL", budget: { maxSteps: 1 } }).pipe(Effect.provide(layer))
      expect(r.ttlExpiration?.exhausted).toBe("steps")
      expect(r.usage.steps).toBe(1)
      expect(r.ttlExpiration?.partialResult?.stepOutputs).toEqual({ s1: "6 * 7 = 42" })
    }))
})

describe("parallel steps into the deadline", () => {
  it.effect("every running step is abandoned, none is left running", () =>
    Effect.gen(function*() {
      const script = {
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [
          planOut(["a", "b", "c"].map((l) => ({ id: l, d: `Describe the letter ${l} in one sentence` })))
        ],
        [PromptId.REASONING_STEP_USER]: [{ ...reasoned("a letter described"), delayMs: 5_000 }]
      }
      const { layer } = scripted(script, { fallback: false })
      const p = yield* prepare({
        task: "Describe the letters a, b and c",
        mode: "FULL",
        parallelism: 3,
        budget: { deadlineMs: 2_000 }
      })
        .pipe(Effect.provide(layer))
      const fiber = yield* Effect.fork(p.execute)
      yield* TestClock.adjust("3 seconds")
      const r = yield* Fiber.join(fiber)
      const events = yield* eventsOf(p)
      expect(events.filter((e) => e._tag === "StepStarted").map((e) => e.stepId).sort()).toEqual(["a", "b", "c"])
      expect(events.filter((e) => e._tag === "StepAbandoned").map((e) => e.stepId).sort()).toEqual(["a", "b", "c"])
      expect(r.plan?.steps.filter((s) => s.status === "running")).toEqual([])
      expect(r.plan?.steps.map((s) => s.status)).toEqual(["failed", "failed", "failed"])
      expect(r.terminationReason).toBe("budget_exhausted")
      expect([...(r.ttlExpiration?.partialResult?.abandonedStepIds ?? [])].sort()).toEqual(["a", "b", "c"])
    }))
})

describe("cancellation", () => {
  it.effect("interrupting a run ends it CANCELLED without synthesis; a tool in progress completes first", () =>
    Effect.gen(function*() {
      written.length = 0
      const { layer, calls } = scripted(ledgerScript(), { fallback: false, tools: [slowWrite] })
      const p = yield* prepare({ task: "Record the payment and explain it", mode: "FULL" }).pipe(Effect.provide(layer))
      const fiber = yield* Effect.fork(p.execute)
      yield* TestClock.adjust("1 second")
      const interruption = yield* Effect.fork(Fiber.interrupt(fiber))
      yield* TestClock.adjust("4 seconds")
      yield* Fiber.join(interruption)
      // the tool ran to its end exactly once, and its result was recorded before the run finished
      expect(written).toEqual(["paid"])
      const events = yield* eventsOf(p)
      const invoked = events.findIndex((e) => e._tag === "ToolInvoked")
      expect(invoked).toBeGreaterThan(0)
      expect(events[invoked]).toMatchObject({ stepId: "s1", output: { written: "paid" } })
      expect(invoked).toBeLessThan(events.findIndex((e) => e._tag === "RunFinished"))
      expect(events.filter((e) => e._tag === "StepAbandoned").map((e) => e.stepId)).toEqual(["s1"])
      yield* TestClock.adjust("10 seconds")
      expect(written).toEqual(["paid"])
      expect(events.at(-1)).toMatchObject({ _tag: "RunFinished", status: "CANCELLED", terminationReason: "cancelled" })
      expect(calls.some((c) => c.promptId === PromptId.ANSWER_SYNTHESIS_USER)).toBe(false)
    }))
})

describe("execution waves", () => {
  it.effect("independent steps run in parallel when parallelism > 1, in order otherwise", () =>
    Effect.gen(function*() {
      const script = {
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [
          planOut(
            ["a", "b", "c"].map((l) => ({
              id: l,
              d: `Fetch the label ${l} with sleepy`,
              tool: "sleepy",
              input: { label: l }
            }))
          )
        ],
        [PromptId.REASONING_STEP_USER]: [reasoned("label fetched")]
      }
      const timesOf = (parallelism: number) =>
        Effect.gen(function*() {
          const { layer } = scripted(script, { fallback: false, tools: [sleepy] })
          const p = yield* prepare({ task: "Fetch the labels a, b and c", mode: "FULL", parallelism }).pipe(
            Effect.provide(layer)
          )
          const fiber = yield* Effect.fork(p.execute)
          for (let i = 0; i < 4; i++) yield* TestClock.adjust("1 second")
          yield* Fiber.join(fiber)
          const events = yield* eventsOf(p)
          const t0 = events[0]!.at
          return events.filter((e) => e._tag === "ToolInvoked").map((e) => e.at - t0)
        })
      expect(yield* timesOf(3)).toEqual([1000, 1000, 1000])
      expect(yield* timesOf(1)).toEqual([1000, 2000, 3000])
    }))
})

describe("a layer's calls at once", () => {
  const letters = ["a", "b", "c"]
  const script = () => ({
    ...convergingScript(),
    [PromptId.PLAN_GENERATION_USER]: [
      planOut(letters.map((l) => ({ id: l, d: `Describe the letter ${l} in one sentence` })))
    ],
    [PromptId.REASONING_STEP_USER]: [{ ...reasoned("a letter described"), delayMs: 1_000 }]
  })
  const reasoningCalls = (calls: ReadonlyArray<{ promptId: string }>) =>
    calls.filter((c) => c.promptId === PromptId.REASONING_STEP_USER).length
  const run = (budget: { maxLlmCalls?: number; maxTokens?: number }) =>
    Effect.gen(function*() {
      const { calls, layer } = scripted(script(), { fallback: false })
      const p = yield* prepare({ task: "Describe the letters a, b and c", mode: "FULL", parallelism: 3, budget })
        .pipe(Effect.provide(layer))
      const fiber = yield* Effect.fork(p.execute)
      for (let i = 0; i < 10; i++) yield* TestClock.adjust("1 second")
      const r = yield* Fiber.join(fiber)
      const before = calls.findIndex((c) => c.promptId === PromptId.REASONING_STEP_USER)
      return { r, calls, before, events: yield* eventsOf(p) }
    })

  it.effect("are admitted beside each other: only the calls that fit the call cap are made", () =>
    Effect.gen(function*() {
      const free = yield* run({})
      expect(reasoningCalls(free.calls)).toBe(3)
      // the calls before the layer, and room for two of its three
      const cap = free.before + 2
      const { calls, r } = yield* run({ maxLlmCalls: cap })
      expect(reasoningCalls(calls)).toBe(2)
      expect(calls.length).toBe(cap)
      expect(r.usage.llmCalls).toBe(cap)
      expect(r.terminationReason).toBe("budget_exhausted")
      expect(r.ttlExpiration?.exhausted).toBe("llmCalls")
    }))
})
