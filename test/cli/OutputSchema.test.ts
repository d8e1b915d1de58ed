import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { type OpenAiStub, startOpenAiStub } from "../support/OpenAiStub.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * `aeon run … --output-schema FILE` (#55 item 3), the built command against a stub OpenAI endpoint: the value
 * printed as JSON (`--json`: `.finalAnswer.data`), a value that never validates exits 1 naming OUTPUT_SCHEMA and the
 * path, a bad schema is refused with its rule and nothing sent; and (item 4) an endpoint that refuses the schema at
 * call time gets JSON mode with the schema in the prompt, the value still validated, an advisory saying so.
 */
let stub: OpenAiStub
/** What the typed prompt is answered, in order (the last repeats); whether json_schema is refused. */
let values: Array<unknown> = []
let refuseSchema = false
let asked = 0
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => {
    const prompt = promptOfRequest(body) ?? ""
    if (prompt !== "answer_typed_user") return { content: JSON.stringify(byPrompt[prompt] ?? {}) }
    if (refuseSchema && body.response_format?.type === "json_schema") {
      return { status: 400, body: { error: { message: "Invalid schema for response_format 'answer_typed_user'" } } }
    }
    return { content: JSON.stringify(values[Math.min(asked++, values.length - 1)]) }
  })
})
afterAll(() => stub.close())

const SCHEMA = {
  type: "object",
  properties: { product: { type: "integer" }, factors: { type: "array", items: { type: "integer" } } },
  required: ["product", "factors"]
}

const cli = (schema: unknown = SCHEMA) => {
  const c = cliIn("aeon-typed-")
  c.env.AEON_LLM_BASE_URL = stub.baseURL
  c.env.AEON_LLM_API_KEY = "k"
  c.env.AEON_MODEL = "gpt-4o-mini"
  c.env.AEON_LLM_TIMEOUT_MS = "10000"
  const file = join(c.dir, "schema.json")
  writeFileSync(file, JSON.stringify(schema))
  return { ...c, file }
}
const reset = (next: Array<unknown>, refuse = false) => {
  values = next
  refuseSchema = refuse
  asked = 0
  stub.requests.length = 0
}

describe("aeon run --output-schema FILE", () => {
  it("prints the value as JSON; --json has it as .finalAnswer.data", async () => {
    const c = cli()
    reset([{ product: 42, factors: [6, 7] }])
    const text = await c.aeon("run", "Compute 6 * 7", "--mode", "full", "--no-memory", "--output-schema", c.file)
    expect(text.code).toBe(0)
    // stdout is the value's JSON alone (a script pipes it on); the summary goes to stderr
    expect(JSON.parse(text.stdout)).toEqual({ product: 42, factors: [6, 7] })
    expect(text.stderr).toMatch(/converged · /)
    reset([{ product: 42, factors: [6, 7] }])
    const json = await c.aeon(
      "run",
      "Compute 6 * 7",
      "--mode",
      "full",
      "--no-memory",
      "--output-schema",
      c.file,
      "--json"
    )
    const result = JSON.parse(json.stdout)
    expect(result.finalAnswer.data).toEqual({ product: 42, factors: [6, 7] })
    // the stored run keeps it: aeon inspect shows the value as JSON
    const inspected = await c.aeon("inspect", result.runId)
    expect(inspected.stdout).toContain(JSON.stringify({ product: 42, factors: [6, 7] }, null, 2))
  }, 60_000)

  it("a value that never validates exits 1 naming OUTPUT_SCHEMA and the failing path", async () => {
    const c = cli()
    reset([{ product: 42, factors: ["six"] }])
    const r = await c.aeon("run", "Compute 6 * 7", "--mode", "full", "--no-memory", "--output-schema", c.file, "--json")
    expect(r.code).toBe(1)
    const result = JSON.parse(r.stdout)
    expect(result.errorCode).toBe("OUTPUT_SCHEMA")
    expect(result.finalAnswer.data).toBeUndefined()
    expect(result.error).toContain("/factors/0: must be integer")
  }, 60_000)

  it("a bad schema is refused with its rule; nothing is sent, no run stored", async () => {
    const c = cli({ type: "object", properties: { a: { $ref: "https://example.com/a.json" } } })
    reset([{}])
    const r = await c.aeon("run", "Compute 6 * 7", "--output-schema", c.file)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/^aeon: .*only local references.*\(rule remote_ref\)/m)
    expect(stub.requests).toHaveLength(0)
    const missing = await c.aeon("run", "Compute 6 * 7", "--output-schema", join(c.dir, "nope.json"))
    expect(missing.stderr).toMatch(/--output-schema/)
    const runs = await c.aeon("runs", "--json")
    expect(JSON.parse(runs.stdout)).toEqual([])
  }, 60_000)

  it("an endpoint that refuses the schema: JSON mode with the schema in the prompt, validated, said", async () => {
    const c = cli()
    reset([{ product: "42" }, { product: 42, factors: [6, 7] }], true)
    const r = await c.aeon("run", "Compute 6 * 7", "--mode", "full", "--no-memory", "--output-schema", c.file, "--json")
    const result = JSON.parse(r.stdout)
    expect(result.status).toBe("CONVERGED")
    expect(result.finalAnswer.data).toEqual({ product: 42, factors: [6, 7] })
    expect(result.advisories.join("\n")).toMatch(
      /refused json_schema.*the run's output schema was asked for in JSON mode \(json_object\) instead of structured output \(json_schema\), the schema in the prompt; the value is validated/
    )
    const typed = stub.requests.filter((b) => promptOfRequest(b) === "answer_typed_user")
    // refused, then JSON mode with the schema in the system prompt; the first value broke it and was repaired, in
    // JSON mode at once (the schema's refusal remembered for the run)
    expect(typed.map((b) => b.response_format?.type)).toEqual(["json_schema", "json_object", "json_object"])
    expect(typed[1].messages[0].content).toContain("\"factors\"")
  }, 60_000)
})
