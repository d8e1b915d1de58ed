import { Option, Redacted } from "effect"
import { request } from "node:http"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gql, startServer, type TestServer } from "../support/server.js"

// Aeon as an OpenAI model, driven by the official `openai` client (the offline model answers: a labeled stand-in).
let server: TestServer
let open: TestServer
beforeAll(async () => {
  server = await startServer({ config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) } })
  open = await startServer()
})
afterAll(async () => {
  await server?.stop()
  await open?.stop()
})

const baseURL = (s: TestServer) => s.url.replace(/\/graphql$/, "/v1")
const client = (key = "key-alice") => new OpenAI({ baseURL: baseURL(server), apiKey: key, maxRetries: 0 })

describe("POST /v1/chat/completions", () => {
  it("answers a chat completion with the run's answer, its usage and its id (the run is the caller's)", async () => {
    const { data: done, response } = await client().chat.completions.create({
      model: "aeon",
      messages: [{ role: "system", content: "You are terse." }, { role: "user", content: "Compute 17 + 25" }]
    }).withResponse()
    expect(response.headers.get("x-aeon-run-id")).toBe(done.id)
    expect(done.object).toBe("chat.completion")
    expect(done.choices[0]!.message.content).toContain("42")
    expect(done.choices[0]!.finish_reason).toBe("stop")
    expect(done.usage!.total_tokens).toBeGreaterThan(0)
    const run = await gql(
      server.url,
      `query($id: ID!) { run(id: $id) { status task usage { inputTokens outputTokens } } }`,
      {
        id: done.id
      },
      { authorization: "Bearer key-alice" }
    )
    expect(run.body.data.run.status).toBe("CONVERGED")
    expect(run.body.data.run.task).toBe("Compute 17 + 25")
    expect(run.body.data.run.usage.inputTokens).toBe(done.usage!.prompt_tokens)
    const bobs = await gql(server.url, `query($id: ID!) { run(id: $id) { id } }`, { id: done.id }, {
      authorization: "Bearer key-bob"
    })
    expect(bobs.body.data.run).toBeNull()
  })

  it("streams the answer as chat.completion.chunks, the run's usage last with include_usage", async () => {
    const stream = await client().chat.completions.create({
      model: "aeon-full",
      messages: [{ role: "user", content: "Compute 17 + 25" }],
      stream: true,
      stream_options: { include_usage: true }
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")
    expect(text).toContain("42")
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1)
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe("stop")
    const last = chunks.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage!.completion_tokens).toBeGreaterThan(0)
    const run = await gql(server.url, `query($id: ID!) { run(id: $id) { mode usage { outputTokens } } }`, {
      id: chunks[0]!.id
    }, { authorization: "Bearer key-alice" })
    expect(run.body.data.run.mode).toBe("FULL")
    expect(run.body.data.run.usage.outputTokens).toBe(last.usage!.completion_tokens)
  })

  it("the last user message is the task; the messages before it are the run's conversation, quoted as data", async () => {
    const done = await client().chat.completions.create({
      model: "aeon-simple",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Remember the number 17." },
        { role: "assistant", content: "Noted: 17." },
        { role: "user", content: "Compute 17 + 25" }
      ]
    })
    const run = await gql(
      server.url,
      `query($id: ID!) { run(id: $id) { task mode conversation { messages text } } }`,
      { id: done.id },
      { authorization: "Bearer key-alice" }
    )
    expect(run.body.data.run.mode).toBe("SIMPLE")
    expect(run.body.data.run.task).toBe("Compute 17 + 25")
    expect(run.body.data.run.conversation.messages).toBe(2)
    expect(run.body.data.run.conversation.text).toContain(
      `{"user":"Remember the number 17."}\n{"assistant":"Noted: 17."}`
    )
  })

  it("the client's system messages are the run's instructions: in its plan call's system prompt, not its conversation", async () => {
    const done = await client().chat.completions.create({
      model: "aeon-full",
      messages: [{ role: "system", content: "You are terse." }, { role: "user", content: "Compute 19 * 23" }]
    })
    const run = await gql(
      server.url,
      `query($id: ID!) { run(id: $id) { conversation { messages } llmCalls(first: 50) { edges { node { promptId system } } } } }`,
      { id: done.id },
      { authorization: "Bearer key-alice" }
    )
    const calls = run.body.data.run.llmCalls.edges.map((e: { node: { promptId: string; system: string } }) => e.node)
    expect(calls.find((c: { promptId: string }) => c.promptId.startsWith("plan_")).system).toMatch(/You are terse\.$/)
    expect(run.body.data.run.conversation).toBeNull()
  })

  it("maps max_tokens and metadata.budget to the run's budget; a budget that cannot be is a 400 in OpenAI's shape", async () => {
    const done = await client().chat.completions.create({
      model: "aeon",
      messages: [{ role: "user", content: "Compute 17 + 25" }],
      max_tokens: 50_000,
      metadata: { budget: JSON.stringify({ maxLlmCalls: 7 }) }
    })
    const run = await gql(server.url, `query($id: ID!) { run(id: $id) { timeline { budget { name cap } } } }`, {
      id: done.id
    }, { authorization: "Bearer key-alice" })
    const caps = Object.fromEntries(run.body.data.run.timeline.budget.map((g: any) => [g.name, g.cap]))
    expect(caps).toMatchObject({ tokens: 50_000, calls: 7 })
    const bad = await client().chat.completions.create({
      model: "aeon",
      messages: [{ role: "user", content: "Compute 17 + 25" }],
      max_tokens: -3
    }).catch((e) => e)
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError)
    expect(bad.code).toBe("InvalidRunInputError")
    expect(bad.message).toMatch(/maxTokens/)
  })

  it("refuses a wrong key (401), an unknown model (404) and a request without a user message (400), starting nothing", async () => {
    const before = await gql(server.url, `{ runs(first: 100) { edges { node { id } } } }`, {}, {
      authorization: "Bearer key-alice"
    })
    const wrong = await client("nope").chat.completions.create({
      model: "aeon",
      messages: [{ role: "user", content: "Compute 17 + 25" }]
    }).catch((e) => e)
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(wrong.status).toBe(401)
    expect(wrong.code).toBe("invalid_api_key")
    expect(wrong.type).toBe("authentication_error")
    const model = await client().chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }]
    })
      .catch((e) => e)
    expect(model).toBeInstanceOf(OpenAI.NotFoundError)
    expect(model.code).toBe("model_not_found")
    const empty = await client().chat.completions.create({
      model: "aeon",
      messages: [{ role: "system", content: "x" }]
    })
      .catch((e) => e)
    expect(empty).toBeInstanceOf(OpenAI.BadRequestError)
    expect(empty.param).toBe("messages")
    const after = await gql(server.url, `{ runs(first: 100) { edges { node { id } } } }`, {}, {
      authorization: "Bearer key-alice"
    })
    expect(after.body.data.runs.edges.length).toBe(before.body.data.runs.edges.length)
  })
})

describe("GET /v1/models", () => {
  it("lists aeon, aeon-simple and aeon-full", async () => {
    const listed = []
    for await (const m of client().models.list()) listed.push(m.id)
    expect(listed).toEqual(["aeon", "aeon-simple", "aeon-full"])
    const wrong = await client("nope").models.list().catch((e) => e)
    expect(wrong.status).toBe(401)
  })
})

describe("a server without API keys", () => {
  it("answers this machine's clients and refuses a foreign Host as on /graphql", async () => {
    const local = new OpenAI({ baseURL: baseURL(open), apiKey: "unused", maxRetries: 0 })
    const done = await local.chat.completions.create({
      model: "aeon",
      messages: [{ role: "user", content: "Compute 6 * 7" }]
    })
    expect(done.choices[0]!.message.content).toContain("42")
    const url = new URL(open.url)
    const refused = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: "/v1/chat/completions",
        method: "POST",
        headers: { host: "evil.example.com", "content-type": "application/json" }
      }, (res) => {
        let text = ""
        res.on("data", (c) => (text += c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
      })
      req.on("error", reject)
      req.end(JSON.stringify({ model: "aeon", messages: [{ role: "user", content: "Compute 6 * 7" }] }))
    })
    expect(refused.status).toBe(403)
    expect(refused.text).toContain("HOST_NOT_ALLOWED")
  })
})
