import { describe, expect, it } from "vitest"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { GraphQLError } from "graphql"
import * as EffectAdapter from "../../src/server/EffectAdapter.js"

class Missing extends Schema.TaggedError<Missing>()("Missing", { message: Schema.String }) {}

describe("the resolver adapter", () => {
  const runtime = ManagedRuntime.make(Layer.empty)
  const adapter = EffectAdapter.make(runtime)

  it("runNow answers a synchronous Effect with a value, not a promise; an asynchronous one is awaited", async () => {
    await runtime.runPromise(Effect.void)
    const now = adapter.runNow(Effect.succeed(42))
    expect(now).toBe(42)
    const later = adapter.runNow(Effect.sleep("10 millis").pipe(Effect.as("late")))
    expect(later).toBeInstanceOf(Promise)
    expect(await later).toBe("late")
  })

  it("a typed failure becomes a GraphQLError with its tag as code, synchronously or not; a defect is masked", async () => {
    expect(() => adapter.runNow(Effect.fail(new Missing({ message: "no such thing" })))).toThrow(GraphQLError)
    try {
      adapter.runNow(Effect.fail(new Missing({ message: "no such thing" })))
    } catch (e) {
      expect((e as GraphQLError).extensions.code).toBe("Missing")
      expect((e as GraphQLError).message).toBe("no such thing")
    }
    const late = adapter.runNow(Effect.sleep("5 millis").pipe(Effect.zipRight(Effect.fail(new Missing({ message: "later" })))))
    await expect(late).rejects.toMatchObject({ extensions: { code: "Missing" } })
    expect(() => adapter.runNow(Effect.die(new Error("secret detail")))).toThrow("Unexpected error.")
  })
})
