import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import type { CompletionRequest } from "../../src/llm/Completion.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare, runTask } from "../../src/run/Run.js"
import { scripted } from "../support/engine.js"
import { ORDER } from "../support/schemas.js"

/**
 * Typed results (#55): a run given an output schema answers with a value of it (`finalAnswer.data`), asked for under
 * the model's structured output, repaired once with the exact paths that failed, never passed off as converged when
 * it does not validate; a plan whose answer already fills the schema costs no answer call.
 */
const GOOD = { product: 42, items: [{ name: "six", price: 6 }, { name: "seven", price: 7 }] }
const TASK = "Compute 6 * 7"

const run = (script: Parameters<typeof scripted>[0], input: Record<string, unknown>) => {
  const engine = scripted(script)
  return Effect.runPromise(
    runTask({ task: TASK, memory: false, ...input }).pipe(Effect.provide(engine.layer))
  ).then((result) => ({ result, calls: engine.calls }))
}
const typedCalls = (calls: ReadonlyArray<CompletionRequest>) =>
  calls.filter((c) => c.promptId === PromptId.ANSWER_TYPED_USER)

describe("a run with an output schema answers with a value of it", () => {
  it("a valid first value is the answer's data, in one call under the schema, strict when it can be", async () => {
    const { calls, result } = await run({ [PromptId.ANSWER_TYPED_USER]: [{ output: GOOD }] }, {
      outputSchema: ORDER
    })
    expect(result.status).toBe("CONVERGED")
    expect(result.finalAnswer?.data).toEqual(GOOD)
    expect(JSON.parse(result.finalAnswer!.answerText)).toEqual(GOOD)
    const typed = typedCalls(calls)
    expect(typed).toHaveLength(1)
    // sent as the output format: every object closed, since every field is required (strict)
    expect(typed[0]!.jsonSchema).toMatchObject({ additionalProperties: false, required: ["product", "items"] })
    expect(typed[0]!.strict).toBe(true)
    expect(typed[0]!.callerSchema).toBe(true)
  })

  it("a value missing a field is sent back once with the exact paths, and the repaired value is the data", async () => {
    const broken = { product: "42", items: [{ name: "six" }] }
    const { calls, result } = await run({ [PromptId.ANSWER_TYPED_USER]: [{ output: broken }, { output: GOOD }] }, {
      outputSchema: ORDER
    })
    expect(result.status).toBe("CONVERGED")
    expect(result.finalAnswer?.data).toEqual(GOOD)
    const typed = typedCalls(calls)
    expect(typed).toHaveLength(2)
    expect(typed[1]!.user).toContain("/product: must be number")
    expect(typed[1]!.user).toContain("/items/0/price: is required")
    expect(typed[1]!.user).toContain(JSON.stringify(broken))
  })

  it("a value that never validates: FAILED, no data, OUTPUT_SCHEMA naming the failing paths, no escalation", async () => {
    const { calls, result } = await run({
      [PromptId.ANSWER_TYPED_USER]: [{ output: { product: 42, items: [{ name: "six", price: "6" }] } }]
    }, { outputSchema: ORDER })
    expect(result.status).toBe("FAILED")
    expect(result.converged).toBe(false)
    expect(result.finalAnswer?.data).toBeUndefined()
    expect(result.errorCode).toBe("OUTPUT_SCHEMA")
    expect(result.error).toContain("/items/0/price: must be number")
    expect(typedCalls(calls)).toHaveLength(2)
    // AUTO did not go on to FULL mode for it: one planning only
    expect(calls.filter((c) => c.promptId === PromptId.PLAN_GENERATION_USER)).toHaveLength(1)
  })

  it("a plan whose answer fills the schema is the value: no answer call", async () => {
    const { calls, result } = await run({
      [PromptId.PLAN_GENERATION_USER]: [{
        output: {
          steps: [{ stepId: "s1", tool: "calculator", toolInput: { expression: "6 * 7" } }],
          answer: "{\"product\": {{s1.value}}, \"items\": []}"
        }
      }]
    }, { outputSchema: ORDER })
    expect(result.status).toBe("CONVERGED")
    expect(result.finalAnswer?.data).toEqual({ product: 42, items: [] })
    expect(typedCalls(calls)).toHaveLength(0)
    expect(calls.filter((c) => c.promptId === PromptId.ANSWER_SYNTHESIS_USER)).toHaveLength(0)
    // the planner was shown the schema
    const plan = calls.find((c) => c.promptId === PromptId.PLAN_GENERATION_USER)!
    expect(plan.user).toContain("\"items\"")
  })

  it("a plan whose answer breaks the schema: the answer call is told the exact paths (the one repair of that value)", async () => {
    const { calls, result } = await run({
      [PromptId.PLAN_GENERATION_USER]: [{
        output: {
          steps: [{ stepId: "s1", tool: "calculator", toolInput: { expression: "6 * 7" } }],
          answer: "{\"total\": {{s1.value}}, \"items\": []}"
        }
      }],
      [PromptId.ANSWER_TYPED_USER]: [{ output: { product: 42, items: [] } }]
    }, { outputSchema: ORDER })
    expect(result.finalAnswer?.data).toEqual({ product: 42, items: [] })
    const typed = typedCalls(calls)
    expect(typed).toHaveLength(1)
    expect(typed[0]!.user).toContain("/product: is required")
    expect(typed[0]!.user).toContain("{\"total\":42,\"items\":[]}")
  })

  it("a schema whose root is not an object is asked for as { value } and returned as the value", async () => {
    const { calls, result } = await run({ [PromptId.ANSWER_TYPED_USER]: [{ output: { value: [6, 7] } }] }, {
      outputSchema: { type: "array", items: { type: "integer" }, minItems: 2 }
    })
    expect(result.finalAnswer?.data).toEqual([6, 7])
    expect(typedCalls(calls)[0]!.jsonSchema).toMatchObject({ type: "object", required: ["value"] })
  })

  it("optional fields: sent non-strict, validated all the same", async () => {
    const schema = {
      type: "object",
      properties: { product: { type: "number" }, note: { type: "string" } },
      required: ["product"]
    }
    const { calls, result } = await run({ [PromptId.ANSWER_TYPED_USER]: [{ output: { product: 42 } }] }, {
      outputSchema: schema
    })
    expect(result.finalAnswer?.data).toEqual({ product: 42 })
    expect(typedCalls(calls)[0]!.strict).toBe(false)
  })

  it("a dry run's forecast counts the typed answer call's schema", async () => {
    const wide = {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field_${i}`, { type: "string" }])),
      required: ["field_0"]
    }
    const forecast = (input: object) =>
      Effect.runPromise(
        Effect.gen(function*() {
          const p = yield* prepare({ task: TASK, memory: false, mode: "FULL", dryRun: true, ...input })
          yield* p.execute
          // what the forecast expects of the run's answer call alone (the planning's spend aside)
          const made = (yield* p.events.log).find((e) => e._tag === "ForecastMade")
          return made?._tag === "ForecastMade" ? made.forecast : undefined
        }).pipe(Effect.provide(scripted({}).layer))
      )
    const plain = await forecast({})
    const typed = await forecast({ outputSchema: wide })
    const answerOf = (f: typeof plain) => f!.expected.tokens - f!.perStep.reduce((n, s) => n + s.expected.tokens, 0)
    // the schema (~1,300 characters) in the answer call, beyond what the plan prompt carrying it adds to every estimate
    expect(answerOf(typed) - answerOf(plain)).toBeGreaterThan(500)
  })

  it("a run without a schema has no data and no typed call", async () => {
    const { calls, result } = await run({}, {})
    expect(result.status).toBe("CONVERGED")
    expect(result.finalAnswer?.data).toBeUndefined()
    expect(typedCalls(calls)).toHaveLength(0)
  })
})

describe("a schema no provider can take is refused before the run starts", () => {
  const refusal = async (input: Record<string, unknown>) => {
    const engine = scripted({})
    const exit = await Effect.runPromiseExit(
      runTask({ task: TASK, ...input }).pipe(Effect.provide(engine.layer))
    )
    expect(engine.calls).toHaveLength(0)
    if (Exit.isSuccess(exit)) throw new Error("the run started")
    const failure = exit.cause._tag === "Fail" ? exit.cause.error as any : undefined
    return { tag: failure?._tag, rule: failure?.rule, message: String(failure?.message) }
  }
  const deep = (n: number): object => n === 0 ? { type: "string" } : { type: "array", items: deep(n - 1) }

  it.each([
    ["invalid_schema", { type: "strng" }, /not a valid JSON Schema/],
    [
      "remote_ref",
      { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } },
      /https:\/\/example\.com/
    ],
    ["too_deep", deep(12), /at most 10/],
    ["too_large", {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 2_000 }, (_, i) => [`field_${i}`, { type: "string", description: "x".repeat(10) }])
      )
    }, /at most 32768/],
    ["unsupported_keyword", { type: "object", properties: { a: { $dynamicRef: "#node" } } }, /\$dynamicRef/],
    ["not_an_object", "a string", /must be a JSON Schema object/]
  ])("%s", async (rule, schema, words) => {
    const r = await refusal({ outputSchema: schema })
    if (rule === "not_an_object") {
      // not a record at all: the run input's own shape refuses it
      expect(r.tag).toBe("InvalidRunInputError")
      return
    }
    expect(r).toMatchObject({ tag: "InvalidOutputSchemaError", rule })
    expect(r.message).toMatch(words)
  })

  it("strict asked of a schema with optional fields is refused, naming where", async () => {
    const r = await refusal({
      outputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a"] },
      outputStrict: true
    })
    expect(r).toMatchObject({ tag: "InvalidOutputSchemaError", rule: "strict_unsupported" })
    expect(r.message).toContain("optional fields (b)")
  })
})
