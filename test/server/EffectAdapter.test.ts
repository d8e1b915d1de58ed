import { Effect, Runtime, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as EffectAdapter from "../../src/server/EffectAdapter.js"

class Missing extends Schema.TaggedError<Missing>()("Missing", { message: Schema.String }) {}

describe("the resolver adapter", () => {
  const adapter = EffectAdapter.make(Runtime.defaultRuntime)

  it("a typed failure becomes a GraphQLError with its tag as code; a defect is masked", async () => {
    expect(await adapter.run(Effect.succeed(42))).toBe(42)
    await expect(adapter.run(Effect.fail(new Missing({ message: "no such thing" })))).rejects.toMatchObject({
      message: "no such thing",
      extensions: { code: "Missing" }
    })
    await expect(adapter.run(Effect.die(new Error("secret detail")))).rejects.toMatchObject({
      message: "Unexpected error.",
      extensions: { code: "INTERNAL_SERVER_ERROR" }
    })
  })

  it("read returns what the runtime holds, synchronously", async () => {
    expect(adapter.read(Effect.succeed("in memory"))).toBe("in memory")
  })

  it("the request's signal interrupts the Effect: the resolver answers CANCELLED", async () => {
    const controller = new AbortController()
    let interrupted = false
    const pending = adapter.run(
      Effect.never.pipe(Effect.onInterrupt(() =>
        Effect.sync(() => {
          interrupted = true
        })
      )),
      controller.signal
    )
    controller.abort()
    await expect(pending).rejects.toMatchObject({ extensions: { code: "CANCELLED" } })
    expect(interrupted).toBe(true)
  })
})
