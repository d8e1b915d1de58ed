import { Option, Redacted } from "effect"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gql, startServer, type TestServer } from "../support/server.js"

/**
 * Aeon behind OpenAI's Responses API (#74), driven by the official `openai` client (the offline model answers: a
 * labeled stand-in). Background responses: ResponsesBackground.test.ts.
 */
let server: TestServer
beforeAll(async () => {
  server = await startServer({ config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) } })
})
afterAll(async () => {
  await server?.stop()
})

const client = (s: TestServer = server, key = "key-alice") =>
  new OpenAI({ baseURL: s.url.replace(/\/graphql$/, "/v1"), apiKey: key, maxRetries: 0 })

const systemsOf = async (runId: string) =>
  (await gql(
    server.url,
    `query($id: ID!) { run(id: $id) { llmCalls(first: 50) { edges { node { promptId system } } } } }`,
    { id: runId },
    { authorization: "Bearer key-alice" }
  )).body.data.run.llmCalls.edges.map((e: { node: { promptId: string; system: string } }) => e.node)

describe("POST /v1/responses", () => {
  it("answers with the run's answer as a message's output_text, its usage, and the instructions in the plan's system prompt", async () => {
    const response = await client().responses.create({
      model: "aeon",
      instructions: "Keep the answer short.",
      input: "Compute 17 + 25",
      metadata: { ticket: "T-1" }
    })
    expect(response.object).toBe("response")
    expect(response.status).toBe("completed")
    expect(response.output_text).toContain("42")
    expect(response.output[0]).toMatchObject({ type: "message", role: "assistant", status: "completed" })
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens)
    expect(response.usage!.input_tokens).toBeGreaterThan(0)
    expect(response.instructions).toBe("Keep the answer short.")
    expect(response.metadata).toEqual({ ticket: "T-1" })
    const calls = await systemsOf(response.id)
    const plan = calls.find((c: { promptId: string }) => c.promptId.startsWith("plan_"))
    expect(plan.system).toMatch(/Keep the answer short\.$/)
    // read back later: the same response
    const again = await client().responses.retrieve(response.id)
    expect(again).toMatchObject({ id: response.id, status: "completed", output_text: response.output_text })
  })

  it("streams its events in order, each numbered higher than the last, the deltas adding up to the text", async () => {
    const stream = await client().responses.create({ model: "aeon-full", input: "Compute 17 + 25", stream: true })
    const events: Array<{ type: string; sequence_number: number; delta?: string }> = []
    for await (const e of stream) events.push(e)
    const types = events.map((e) => e.type)
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added"
    ])
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed"
    ])
    const numbers = events.map((e) => e.sequence_number)
    expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!)).toBe(true)
    const text = events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("")
    const done = events.find((e) => e.type === "response.output_text.done") as unknown as { text: string }
    expect(text).toBe(done.text)
    expect(text).toContain("42")
    const completed = events.at(-1) as unknown as { response: { id: string; status: string } }
    expect(completed.response.status).toBe("completed")

    // resumed after a sequence number: the events after it, numbered alike
    const cut = numbers[5]!
    const resumed = await client().responses.retrieve(completed.response.id, { stream: true, starting_after: cut })
    const later: Array<{ type: string; sequence_number: number; delta?: string }> = []
    for await (const e of resumed) later.push(e)
    expect(later[0]!.sequence_number).toBeGreaterThan(cut)
    expect(later.at(-1)!.type).toBe("response.completed")
    const before = events.filter((e) => e.sequence_number <= cut && e.type === "response.output_text.delta").map((e) =>
      e.delta
    ).join("")
    const after = later.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("")
    expect(before + after).toBe(done.text)
  })

  it("previous_response_id: the next turn sees the one before it; another user's id is not found", async () => {
    const first = await client().responses.create({ model: "aeon", input: "What is 6 * 7 plus 3?" })
    expect(first.output_text).toContain("45")
    const second = await client().responses.create({
      model: "aeon",
      input: "Multiply that by 2",
      previous_response_id: first.id
    })
    expect(second.status).toBe("completed")
    expect(second.output_text).toContain("90")
    await expect(
      client(server, "key-bob").responses.create({
        model: "aeon",
        input: "Multiply that by 2",
        previous_response_id: first.id
      })
    ).rejects.toMatchObject({ status: 404 })
    await expect(client(server, "key-bob").responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 })
  })

  it("text.format json_schema: the output text is the value's JSON", async () => {
    const response = await client().responses.create({
      model: "aeon",
      input: "Compute 17 + 25",
      text: {
        format: {
          type: "json_schema",
          name: "sum",
          schema: {
            type: "object",
            properties: { sum: { type: "number" } },
            required: ["sum"],
            additionalProperties: false
          }
        }
      }
    })
    expect(response.status).toBe("completed")
    expect(JSON.parse(response.output_text)).toEqual({ sum: 42 })
  })

  it("refuses function tools, an unknown model and a bad input, coded, starting nothing", async () => {
    const before = (await gql(server.url, `{ runs(first: 100) { edges { node { id } } } }`, {}, {
      authorization: "Bearer key-alice"
    })).body.data.runs.edges.length
    await expect(
      client().responses.create({
        model: "aeon",
        input: "Compute 17 + 25",
        tools: [{ type: "function", name: "f", parameters: {}, strict: false }]
      })
    ).rejects.toMatchObject({ status: 400, code: "tools_unsupported", param: "tools" })
    await expect(client().responses.create({ model: "gpt-9", input: "x" })).rejects.toMatchObject({
      status: 404,
      code: "model_not_found"
    })
    await expect(client().responses.create({ model: "aeon", input: [] })).rejects.toMatchObject({ status: 400 })
    await expect(client(server, "nope").responses.create({ model: "aeon", input: "x" })).rejects.toMatchObject({
      status: 401
    })
    const after = (await gql(server.url, `{ runs(first: 100) { edges { node { id } } } }`, {}, {
      authorization: "Bearer key-alice"
    })).body.data.runs.edges.length
    expect(after).toBe(before)
  })

  it("store: false — answered, then erased: it cannot be read back", async () => {
    const response = await client().responses.create({ model: "aeon", input: "Compute 17 + 25", store: false })
    expect(response.output_text).toContain("42")
    await expect(client().responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 })
  })
})
