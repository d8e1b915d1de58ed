import { Context, Effect, Layer, Runtime, Schema } from "effect"
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

  it("read answers from the services of the runtime it was made with, synchronously", async () => {
    class Label extends Context.Tag("test/Label")<Label, { readonly text: string }>() {}
    const runtime = await Effect.runPromise(
      Layer.toRuntime(Layer.succeed(Label, { text: "from the server's layer" })).pipe(Effect.scoped)
    )
    const withLabel = EffectAdapter.make(runtime)
    expect(withLabel.read(Effect.map(Label, (l) => l.text))).toBe("from the server's layer")
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
