import { Effect, Schema } from "effect"
import { describe, expect, expectTypeOf, it } from "vitest"
import { runTask } from "../../src/index.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { scripted } from "../support/engine.js"

/**
 * The library's typed result (#55 item 1): `runTask({ task, output: MySchema })` sends the Schema's JSON Schema as the
 * run's output schema and returns `data` decoded by it, typed as the Schema's type (checked by `tsc --strict` in
 * `npm run typecheck`: a wrong type here fails it).
 */
const Product = Schema.Struct({
  product: Schema.Number,
  factors: Schema.Array(Schema.Int),
  at: Schema.DateFromString
})

describe("runTask with output: a Schema", () => {
  it("returns data of the Schema's type, decoded from the validated value", async () => {
    const engine = scripted({
      [PromptId.ANSWER_TYPED_USER]: [{ output: { product: 42, factors: [6, 7], at: "2026-11-27T00:00:00.000Z" } }]
    })
    const result = await Effect.runPromise(
      runTask({ task: "Compute 6 * 7", memory: false, output: Product }).pipe(Effect.provide(engine.layer))
    )
    expectTypeOf(result.data).toEqualTypeOf<
      { readonly product: number; readonly factors: ReadonlyArray<number>; readonly at: Date } | undefined
    >()
    expect(result.status).toBe("CONVERGED")
    expect(result.data?.product).toBe(42)
    expect(result.data?.at).toBeInstanceOf(Date)
    // what the model was asked for: the Schema's encoded side, as JSON Schema
    const asked = engine.calls.find((c) => c.promptId === PromptId.ANSWER_TYPED_USER)!
    expect(asked.jsonSchema).toMatchObject({
      type: "object",
      required: ["product", "factors", "at"],
      properties: { at: { $ref: "#/$defs/DateFromString" }, factors: { items: { $ref: "#/$defs/Int" } } },
      $defs: { DateFromString: { type: "string" }, Int: { type: "integer" } }
    })
  })

  it("without output, the result as before (no data field typed)", async () => {
    const engine = scripted({})
    const result = await Effect.runPromise(
      runTask({ task: "Compute 6 * 7", memory: false }).pipe(Effect.provide(engine.layer))
    )
    expect(result.status).toBe("CONVERGED")
    expect("data" in result).toBe(false)
  })
})
