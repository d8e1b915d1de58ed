import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref, Schema } from "effect"
import { evaluate, findExpression } from "../../src/tools/Calculator.js"
import * as ToolRegistry from "../../src/tools/ToolRegistry.js"

const ctx = Effect.map(Ref.make<ReadonlyMap<string, unknown>>(new Map()), (memory) => ({ runId: "r", memory }))

describe("calculator", () => {
  it("evaluates arithmetic with precedence, parentheses, unary minus and powers — without eval", () => {
    expect(evaluate("(17 + 25) * 3")).toBe(126)
    expect(evaluate("2 + 3 * 4")).toBe(14)
    expect(evaluate("-2 ^ 2")).toBe(-4)
    expect(evaluate("2 ^ 3 ^ 2")).toBe(512)
    expect(evaluate("10 % 4 + 1.5")).toBe(3.5)
    expect(() => evaluate("1 / 0")).toThrow("division by zero")
    expect(() => evaluate("process.exit(1)")).toThrow()
    expect(() => evaluate("2 +")).toThrow("unexpected end")
  })
  it("finds the expression in a task", () => {
    expect(findExpression("Compute (17 + 25) * 3 and explain the result")).toBe("(17 + 25) * 3")
    expect(findExpression("Explain the French revolution")).toBeUndefined()
  })
})

describe("ToolRegistry", () => {
  it.effect("decodes input before the call: a bad input is a ToolInputError naming the field", () =>
    Effect.gen(function*() {
      const r = ToolRegistry.make(ToolRegistry.builtinTools)
      const e = yield* Effect.flip(r.invoke("calculator", { expr: "1" }, yield* ctx))
      expect(e._tag).toBe("ToolInputError")
      expect(e.message).toContain("expression")
      expect(yield* r.invoke("calculator", { expression: "6 * 7" }, yield* ctx)).toEqual({
        expression: "6 * 7",
        value: 42
      })
      expect((yield* Effect.flip(r.invoke("nope", {}, yield* ctx)))._tag).toBe("UnknownToolError")
    }))

  it.effect("memory.write and memory.read share the run's memory; clock.now reads the clock", () =>
    Effect.gen(function*() {
      const r = ToolRegistry.make(ToolRegistry.builtinTools)
      const c = yield* ctx
      expect(yield* r.invoke("memory.read", { key: "k" }, c)).toEqual({ key: "k", found: false })
      yield* r.invoke("memory.write", { key: "k", value: [1, 2] }, c)
      expect(yield* r.invoke("memory.read", { key: "k" }, c)).toEqual({ key: "k", found: true, value: [1, 2] })
      expect(yield* r.invoke("clock.now", {}, c)).toEqual({ iso: "1970-01-01T00:00:00.000Z", epochMs: 0 })
    }))

  it.live("users register their own tools; a tool slower than its timeout fails with a timeout", () =>
    Effect.gen(function*() {
      const slow = ToolRegistry.tool({
        name: "slow",
        description: "sleeps",
        input: Schema.Struct({}),
        output: Schema.Struct({}),
        timeoutMs: 50,
        idempotent: true,
        run: () => Effect.sleep("1 second").pipe(Effect.as({}))
      })
      const r = ToolRegistry.make([...ToolRegistry.builtinTools, slow])
      expect(r.names).toContain("slow")
      const e = yield* Effect.flip(r.invoke("slow", {}, yield* ctx)).pipe(Effect.timeout("5 seconds"), Effect.either)
      expect(e).toMatchObject({ _tag: "Right", right: { _tag: "ToolTimeoutError", timeoutMs: 50 } })
    }))

  it.effect("a synchronous tool answers within the same fiber, with no timer: its result is there without the clock moving", () =>
    Effect.gen(function*() {
      const upper = ToolRegistry.tool({
        name: "upper",
        description: "upper-cases a word",
        input: Schema.Struct({ word: Schema.String }),
        output: Schema.Struct({ word: Schema.String }),
        timeoutMs: 50,
        idempotent: true,
        synchronous: true,
        run: ({ word }) => Effect.sync(() => ({ word: word.toUpperCase() }))
      })
      const r = ToolRegistry.make([upper])
      // under the TestClock a timer would never fire; a synchronous tool sets none and answers at once
      const fiber = yield* Effect.fork(r.invoke("upper", { word: "aeon" }, yield* ctx))
      yield* Effect.yieldNow()
      expect(fiber.unsafePoll()).toMatchObject({ _tag: "Success", value: { word: "AEON" } })
      // the built-in tools that touch only the run's memory or the clock are all synchronous; memory across runs waits
      // on its store
      expect(ToolRegistry.builtinTools.filter((t) => !t.synchronous).map((t) => t.name)).toEqual([
        "memory.remember",
        "memory.recall"
      ])
    }))

  it("refuses two tools with the same name", () => {
    expect(() => ToolRegistry.make([ToolRegistry.calculator, ToolRegistry.calculator])).toThrow("registered twice")
  })
})
