import { ClientFactory } from "@a2a-js/sdk/client"
import { HttpAgent } from "@ag-ui/client"
import type { BaseEvent } from "@ag-ui/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai"
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { userMessage } from "../support/a2a.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { ORDER } from "../support/schemas.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * Typed results through every surface (#55 item 3), each through its own client, against a real OpenAI provider
 * pointed at a stub endpoint that answers the typed prompt with the values a test queues (the schema it was sent is
 * read back from its requests): GraphQL over HTTP, `/v1` with the `openai` client, the MCP SDK's client, `@a2a-js/sdk`,
 * AG-UI's HttpAgent and the AI SDK's transport.
 */
let stub: OpenAiStub
let app: TestServer
/** What the stub answers the typed prompt, in order (the last repeats). */
let values: Array<unknown> = []
let typedAsked = 0
const TYPED = "answer_typed_user"

beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => {
    const prompt = promptOfRequest(body) ?? ""
    if (prompt !== TYPED) return { content: JSON.stringify(byPrompt[prompt] ?? {}) }
    // an endpoint whose structured output cannot take a schema with this field
    if (JSON.stringify(body.response_format ?? {}).includes("unsupported_here")) {
      return { status: 400, body: { error: { message: "Invalid schema for response_format 'answer_typed_user'" } } }
    }
    const value = values[Math.min(typedAsked++, values.length - 1)]
    // written as a model writes: in pieces, a little apart (the stream carries them as they come)
    return { content: JSON.stringify(value), chunkChars: 8, chunkDelayMs: 15 }
  })
  app = await startServer({ model: stubModel(stub) })
})
afterAll(async () => {
  await app?.stop()
  await stub?.close()
})
beforeEach(() => {
  typedAsked = 0
  stub.requests.length = 0
})

const GOOD = { product: 42, items: [{ name: "six", price: 6 }] }
const typedRequests = () => stub.requests.filter((b) => promptOfRequest(b) === TYPED)
const base = () => app.url.replace(/\/graphql$/, "")

const RUN = `query($id: ID!) { run(id: $id) { status finalAnswer { answerText data } result { error errorCode } } }`
const startTyped = async (schema: unknown, extra = "") => {
  const started = await gql(
    app.url,
    `mutation($schema: JSON) { runTask(input: { task: "Compute 6 * 7", mode: FULL, memory: false, outputSchema: $schema ${extra} }) { id } }`,
    { schema }
  )
  return started
}

describe("GraphQL: RunTaskInput.outputSchema, FinalAnswer.data, RunOutcome.errorCode", () => {
  it("a valid value: data, asked for under json_schema in strict mode with every object closed", async () => {
    values = [GOOD]
    const started = await startTyped(ORDER)
    const run = await awaitRun(app.url, started.body.data.runTask.id, { query: RUN })
    expect(run.status).toBe("CONVERGED")
    expect(run.finalAnswer.data).toEqual(GOOD)
    expect(JSON.parse(run.finalAnswer.answerText)).toEqual(GOOD)
    const [asked] = typedRequests()
    expect(asked.response_format.json_schema.strict).toBe(true)
    expect(asked.response_format.json_schema.schema.additionalProperties).toBe(false)
    expect(asked.response_format.json_schema.schema.properties.items.items.additionalProperties).toBe(false)
  })

  it("a value missing a field is repaired in one more call", async () => {
    values = [{ product: 42, items: [{ name: "six" }] }, GOOD]
    const started = await startTyped(ORDER)
    const run = await awaitRun(app.url, started.body.data.runTask.id, { query: RUN })
    expect(run.status).toBe("CONVERGED")
    expect(run.finalAnswer.data).toEqual(GOOD)
    const asked = typedRequests()
    expect(asked).toHaveLength(2)
    expect(asked[1].messages[1].content).toContain("/items/0/price: is required")
  })

  it("a value that never validates: FAILED, data null, OUTPUT_SCHEMA naming the path", async () => {
    values = [{ product: "42", items: [] }]
    const started = await startTyped(ORDER)
    const run = await awaitRun(app.url, started.body.data.runTask.id, { query: RUN })
    expect(run.status).toBe("FAILED")
    expect(run.finalAnswer.data).toBeNull()
    expect(run.result.errorCode).toBe("OUTPUT_SCHEMA")
    expect(run.result.error).toContain("/product: must be number")
    expect(typedRequests()).toHaveLength(2)
  })

  it("bad schemas are refused with their rule, nothing started", async () => {
    const before = (await gql(app.url, `{ runs(first: 100) { edges { node { id } } } }`)).body.data.runs.edges.length
    for (
      const [schema, rule] of [
        [{ type: "object", properties: { a: { $ref: "http://x.test/a.json" } } }, "remote_ref"],
        [{ type: 12 }, "invalid_schema"]
      ] as const
    ) {
      const refused = await startTyped(schema)
      expect(refused.body.errors?.[0]?.extensions?.code).toBe("InvalidOutputSchemaError")
      expect(refused.body.errors?.[0]?.message).toContain(`(rule ${rule})`)
    }
    const strict = await startTyped({ type: "object", properties: { a: { type: "string" } } }, "outputStrict: true")
    expect(strict.body.errors?.[0]?.message).toMatch(
      /strict structured output cannot take this schema.*optional fields \(a\)/
    )
    const after = (await gql(app.url, `{ runs(first: 100) { edges { node { id } } } }`)).body.data.runs.edges.length
    expect(after).toBe(before)
    expect(stub.requests).toHaveLength(0)
  })
})

describe("a schema the endpoint refuses at call time", () => {
  it("steps down for that run's calls only (JSON mode, the schema in the prompt), validated, said", async () => {
    values = [{ unsupported_here: 7 }]
    const schema = {
      type: "object",
      properties: { unsupported_here: { type: "integer" } },
      required: ["unsupported_here"]
    }
    const started = await startTyped(schema)
    const run = await awaitRun(app.url, started.body.data.runTask.id, {
      query: `query($id: ID!) { run(id: $id) { status finalAnswer { data } result { advisories } } }`
    })
    expect(run.status).toBe("CONVERGED")
    expect(run.finalAnswer.data).toEqual({ unsupported_here: 7 })
    expect(run.result.advisories.join("\n")).toMatch(/output schema was asked for in JSON mode/)
    expect(typedRequests().map((b) => b.response_format?.type)).toEqual(["json_schema", "json_object"])
    // the endpoint's own prompts keep structured output
    stub.requests.length = 0
    values = [GOOD]
    const next = await startTyped(ORDER)
    await awaitRun(app.url, next.body.data.runTask.id, { query: RUN })
    expect(stub.requests.every((b) => b.response_format?.type === "json_schema")).toBe(true)
  })
})

describe("/v1/chat/completions honours response_format", () => {
  const client = () => new OpenAI({ baseURL: `${base()}/v1`, apiKey: "none", maxRetries: 0 })
  const messages = [{ role: "user" as const, content: "Compute 6 * 7" }]

  it("json_schema: the content is the value's JSON text; strict as the request says", async () => {
    values = [GOOD]
    const done = await client().chat.completions.create({
      model: "aeon-full",
      messages,
      response_format: { type: "json_schema", json_schema: { name: "order", schema: ORDER, strict: true } }
    })
    expect(JSON.parse(done.choices[0]!.message.content!)).toEqual(GOOD)
    expect(typedRequests()[0].response_format.json_schema.strict).toBe(true)
  })

  it("json_schema streamed: the chunks add up to the value's JSON text", async () => {
    values = [GOOD]
    const stream = await client().chat.completions.create({
      model: "aeon-full",
      messages,
      stream: true,
      response_format: { type: "json_schema", json_schema: { name: "order", schema: ORDER } }
    })
    let text = ""
    let pieces = 0
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content ?? ""
      text += piece
      if (piece !== "") pieces++
    }
    expect(JSON.parse(text)).toEqual(GOOD)
    // streamed as the model wrote it, not whole at the end
    expect(pieces).toBeGreaterThan(2)
    // not strict unless asked (OpenAI's default)
    expect(typedRequests()[0].response_format.json_schema.strict).toBe(false)
  })

  it("json_object: the content is a JSON object", async () => {
    values = [{ product: 42 }]
    const done = await client().chat.completions.create({
      model: "aeon-full",
      messages,
      response_format: { type: "json_object" }
    })
    expect(JSON.parse(done.choices[0]!.message.content!)).toEqual({ product: 42 })
  })

  it("a value that never validates is an error, not a completion; a strict schema that cannot be strict is a 400", async () => {
    values = [{ product: "x", items: [] }]
    const failed = await client().chat.completions.create({
      model: "aeon-full",
      messages,
      response_format: { type: "json_schema", json_schema: { name: "order", schema: ORDER } }
    }).catch((e: InstanceType<typeof OpenAI.APIError>) => e)
    expect(failed).toBeInstanceOf(OpenAI.APIError)
    expect((failed as InstanceType<typeof OpenAI.APIError>).code).toBe("output_schema")
    expect((failed as InstanceType<typeof OpenAI.APIError>).message).toContain("/product: must be number")
    const refused = await client().chat.completions.create({
      model: "aeon-full",
      messages,
      response_format: {
        type: "json_schema",
        json_schema: { name: "o", schema: { type: "object", properties: { a: { type: "string" } } }, strict: true }
      }
    }).catch((e: InstanceType<typeof OpenAI.APIError>) => e)
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(400)
    expect((refused as InstanceType<typeof OpenAI.APIError>).code).toBe("InvalidOutputSchemaError")
  })
})

describe("MCP, A2A, AG-UI and the UI stream carry the value", () => {
  it("MCP run_task with outputSchema returns the value as structuredContent", async () => {
    values = [GOOD]
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`)))
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === "run_task")!
      expect(Object.keys(tool.inputSchema.properties ?? {})).toContain("outputSchema")
      const result = await client.callTool({
        name: "run_task",
        arguments: { task: "Compute 6 * 7", mode: "FULL", outputSchema: ORDER }
      })
      expect(result.structuredContent).toEqual(GOOD)
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(GOOD)
      expect((result._meta as any)["aeon/run"].status).toBe("CONVERGED")
    } finally {
      await client.close()
    }
  })

  it("A2A: a message carrying outputSchema gets a data part in its answer artifact; the card says how", async () => {
    values = [GOOD]
    const client = await new ClientFactory().createFromUrl(base())
    const card = await client.getAgentCard()
    expect(card.skills[0]!.description).toMatch(/outputSchema/)
    expect(card.skills[0]!.outputModes).toContain("application/json")
    const sent = await client.sendMessage({
      tenant: "",
      message: userMessage("Compute 6 * 7", { metadata: { outputSchema: ORDER } }),
      configuration: undefined,
      metadata: { aeon: { mode: "FULL" } }
    })
    const task = "artifacts" in sent ? sent : undefined
    const parts = task?.artifacts[0]?.parts ?? []
    const data = parts.find((p) => p.content?.$case === "data")
    expect(data?.mediaType).toBe("application/json")
    expect(data?.content?.$case === "data" && data.content.value).toEqual(GOOD)
    // the schema as a data part of the message (application/schema+json) does the same
    const withPart = userMessage("Compute 6 * 7")
    const schemaPart = {
      content: { $case: "data" as const, value: ORDER },
      metadata: undefined,
      filename: "",
      mediaType: "application/schema+json"
    }
    const again = await client.sendMessage({
      tenant: "",
      message: { ...withPart, parts: [...withPart.parts, schemaPart] },
      configuration: undefined,
      metadata: { aeon: { mode: "FULL" } }
    })
    const task2 = "artifacts" in again ? again : undefined
    const data2 = (task2?.artifacts[0]?.parts ?? []).find((p) => p.content?.$case === "data")
    expect(data2?.content?.$case === "data" && data2.content.value).toEqual(GOOD)
  })

  it("AG-UI: the value in RUN_FINISHED's result and a custom aeon.data event", async () => {
    values = [GOOD]
    const agent = new HttpAgent({ url: `${base()}/ag-ui` })
    agent.addMessage({ id: "m1", role: "user", content: "Compute 6 * 7" })
    const events: Array<BaseEvent> = []
    await agent.runAgent({ forwardedProps: { aeon: { mode: "FULL", outputSchema: ORDER } } }, {
      onEvent: ({ event }) => void events.push(event)
    })
    const custom = events.find((e) => e.type === "CUSTOM") as any
    expect(custom).toMatchObject({ name: "aeon.data", value: GOOD })
    const finished = events.find((e) => e.type === "RUN_FINISHED") as any
    expect(finished.result.data).toEqual(GOOD)
  })

  it("the AI SDK's UI stream: a data-output part", async () => {
    values = [GOOD]
    const transport = new DefaultChatTransport<UIMessage>({ api: `${base()}/api/chat` })
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: "typed-1",
      messageId: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Compute 6 * 7" }] }],
      abortSignal: undefined,
      body: { aeon: { mode: "FULL", outputSchema: ORDER } }
    })
    let last: UIMessage | undefined
    for await (const m of readUIMessageStream({ stream })) last = m
    const part = last!.parts.find((p) => p.type === "data-output") as { data?: unknown } | undefined
    expect(part?.data).toEqual(GOOD)
  })
})
