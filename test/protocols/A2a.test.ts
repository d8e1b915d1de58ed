import { type Message, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk"
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client"
import { Option, Redacted } from "effect"
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { userMessage } from "../support/a2a.js"
import { gql, startServer, type TestServer } from "../support/server.js"
import { Arrivals } from "../support/until.js"

// @a2a-js/sdk's own client (its ClientFactory and JSON-RPC transport) against /.well-known/agent-card.json and /a2a;
// the offline model answers (a labeled stand-in).
let server: TestServer
beforeAll(async () => {
  // a body limit of 1 MB (AEON_MAX_BODY_BYTES), to refuse past it without sending 71 MB
  server = await startServer({
    config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")), maxBodyBytes: 1_000_000 }
  })
})
afterAll(() => server?.stop())

const base = () => server.url.replace(/\/graphql$/, "")
const clientOf = (key = "key-alice", legacy = false) => {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers)
    headers.set("authorization", `Bearer ${key}`)
    return fetch(input, { ...init, headers })
  }
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl, ...(legacy ? { legacyCompat: { enabled: true } } : {}) })],
    ...(legacy ? { preferredTransports: ["JSONRPC"] } : {})
  }))
  if (!legacy) return factory.createFromUrl(base())
  // a peer that speaks 0.3 only: the card's 0.3 interface
  return new ClientFactory().createFromUrl(base()).then((c) => c.getAgentCard()).then((card) =>
    factory.createFromAgentCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === "0.3")
    })
  )
}

const message = userMessage

const request = (m: Message, aeon?: Record<string, unknown>) => ({
  tenant: "",
  message: m,
  configuration: undefined,
  metadata: aeon ? { aeon } : undefined
})

const artifactText = (t: Task) =>
  t.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []))).join("")

const collect = async (stream: AsyncGenerator<StreamResponse>) => {
  const out: Array<StreamResponse> = []
  for await (const r of stream) out.push(r)
  return out
}
const lastStatus = (rs: ReadonlyArray<StreamResponse>) =>
  rs.flatMap((r) => (r.payload?.$case === "statusUpdate" ? [r.payload.value.status?.state] : [])).at(-1)

describe("A2A", () => {
  it("the agent card names the host each caller asked for, also when callers ask at once (no shared last Host)", async () => {
    const { port } = new URL(base())
    const cardFor = (host: string, path: string) =>
      new Promise<string>((resolve, reject) => {
        const req = httpRequest(
          { host: "127.0.0.1", port, path, headers: { host, authorization: "Bearer key-alice" } },
          (res) => {
            let body = ""
            res.on("data", (c: Buffer) => (body += c.toString()))
            res.on("end", () => resolve(body))
          }
        )
        req.on("error", reject)
        req.end()
      })
    const hosts = Array.from({ length: 40 }, (_, i) => (i % 2 ? `localhost:${port}` : `127.0.0.1:${port}`))
    const cards = await Promise.all(hosts.map((h) => cardFor(h, "/.well-known/agent-card.json")))
    cards.forEach((card, i) => {
      const urls = (JSON.parse(card) as { supportedInterfaces: Array<{ url: string }> }).supportedInterfaces
      for (const { url } of urls) expect(url, `caller ${i}`).toBe(`http://${hosts[i]}/a2a`)
    })
  })

  it("the agent card in the version asked for (0.3 when none is), with an ETag answered 304 and CORS", async () => {
    const get = (headers: Record<string, string>) =>
      fetch(`${base()}/.well-known/agent-card.json`, { headers: { origin: "http://app.example", ...headers } })
    const legacy = await get({})
    expect(legacy.status).toBe(200)
    expect(legacy.headers.get("content-type")).toMatch(/^application\/json/)
    expect(legacy.headers.get("vary")).toMatch(/A2A-Version/i)
    expect(legacy.headers.get("cache-control")).toBe("no-cache")
    expect(legacy.headers.get("access-control-allow-origin")).not.toBeNull()
    const old = await legacy.json()
    // 0.3's shape: one url and its transport at the top, the 1.0 interfaces kept beside them
    expect(old).toMatchObject({
      name: "Aeon",
      protocolVersion: "0.3",
      url: `${base()}/a2a`,
      preferredTransport: "JSONRPC",
      capabilities: { streaming: true, pushNotifications: true }
    })
    expect(old.supportedInterfaces.map((i: { protocolVersion: string }) => i.protocolVersion).sort()).toEqual(
      ["0.3", "1.0"]
    )
    expect(await (await get({ "a2a-version": "0.3" })).json()).toEqual(old)
    const current = await get({ "a2a-version": "1.0" })
    const card = await current.json()
    expect(card.url).toBeUndefined()
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: false })
    expect(card.supportedInterfaces.map((i: { url: string }) => i.url)).toEqual([`${base()}/a2a`, `${base()}/a2a`])
    // a client holding the card asks again with its ETag: nothing new (each version its own tag)
    const tag = current.headers.get("etag")!
    expect(tag).toMatch(/^W\/"/)
    expect(legacy.headers.get("etag")).not.toBe(tag)
    expect((await get({ "a2a-version": "1.0", "if-none-match": tag })).status).toBe(304)
    expect((await get({ "if-none-match": legacy.headers.get("etag")! })).status).toBe(304)
    expect((await get({ "if-none-match": tag })).status).toBe(200)
    expect((await get({ "if-none-match": `W/"0000", ${legacy.headers.get("etag")}` })).status).toBe(304)
  })

  it("serves an agent card: a skill to run a task within a budget, streaming, push notifications (#73.2)", async () => {
    const client = await clientOf()
    const card = await client.getAgentCard()
    expect(card.name).toBe("Aeon")
    expect(card.skills.map((s) => s.id)).toEqual(["run-task"])
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true })
    expect(card.supportedInterfaces.map((i) => i.protocolVersion).sort()).toEqual(["0.3", "1.0"])
  })

  it("streams a task to completed with the answer as an artifact; the task reads the same afterwards", async () => {
    const client = await clientOf()
    const responses = await collect(
      client.sendMessageStream(request(message("Compute 17 + 25", { contextId: "ctx-1" })))
    )
    expect(responses[0]!.payload?.$case).toBe("task")
    const first = responses[0]!.payload!.value as Task
    expect(first.contextId).toBe("ctx-1")
    expect(lastStatus(responses)).toBe(TaskState.TASK_STATE_COMPLETED)
    const artifacts = responses.flatMap((r) => (r.payload?.$case === "artifactUpdate" ? [r.payload.value] : []))
    expect(artifacts.at(-1)!.lastChunk).toBe(true)
    const task = await client.getTask({ tenant: "", id: first.id })
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(task.contextId).toBe("ctx-1")
    expect(artifactText(task)).toContain("42")
    const run = await gql(server.url, `query($id: ID!) { run(id: $id) { status tags } }`, { id: task.id }, {
      authorization: "Bearer key-alice"
    })
    expect(run.body.data.run).toEqual({ status: "CONVERGED", tags: ["a2a", "context:ctx-1"] })
    const bob = await (await clientOf("key-bob")).getTask({ tenant: "", id: first.id }).catch((e) => e)
    expect(bob).toBeInstanceOf(Error)
  })

  it("a task waiting for its plan's approval is input-required; the next message on the task approves it", async () => {
    const client = await clientOf()
    const sent = await client.sendMessage(request(message("Compute 17 + 25"), { mode: "FULL", approvePlan: true }))
    const waiting = sent as Task
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED)
    const asked = waiting.status?.message?.parts[0]?.content
    expect(asked?.$case === "text" && asked.value).toMatch(/plan/)
    const responses = await collect(
      client.sendMessageStream(request(message("approve", { taskId: waiting.id, contextId: waiting.contextId })))
    )
    expect(lastStatus(responses)).toBe(TaskState.TASK_STATE_COMPLETED)
    const task = await client.getTask({ tenant: "", id: waiting.id })
    expect(artifactText(task)).toContain("42")
  })

  it("a task sent to return at once is followed by subscribing to it, to completed", async () => {
    const client = await clientOf()
    const sent = await client.sendMessage({
      ...request(message("Compute 17 + 25"), { mode: "FULL", approvePlan: true }),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true }
    }) as Task
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_INPUT_REQUIRED])
      .toContain(sent.status?.state)
    // told when it waits for its plan's approval (a first follower: whether its stream ends there is the server's),
    // then followed again while the approval is given on the task
    const told = new Arrivals<StreamResponse>()
    void (async () => {
      for await (const r of client.resubscribeTask({ tenant: "", id: sent.id })) told.push(r)
    })().catch(() => {})
    const stateOf = (all: ReadonlyArray<StreamResponse>) =>
      lastStatus(all) ?? (all[0]?.payload?.$case === "task" ? all[0].payload.value.status?.state : undefined)
    await told.until((all) => (stateOf(all) === TaskState.TASK_STATE_INPUT_REQUIRED ? true : undefined))
    const following = collect(client.resubscribeTask({ tenant: "", id: sent.id }))
    await client.sendMessage(request(message("approve", { taskId: sent.id, contextId: sent.contextId })))
    const followed = await following
    expect(followed[0]!.payload?.$case).toBe("task")
    expect(lastStatus(followed)).toBe(TaskState.TASK_STATE_COMPLETED)
    const artifacts = followed.flatMap((r) => (r.payload?.$case === "artifactUpdate" ? [r.payload.value] : []))
    expect(artifacts.at(-1)!.lastChunk).toBe(true)
  })

  it("a v0.3 client is served through the SDK's compatibility layer", async () => {
    const client = await clientOf("key-alice", true)
    expect(client.protocolVersion).toBe("0.3")
    const sent = await client.sendMessage(request(message("Compute 6 * 7")))
    const task = sent as Task
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(artifactText(task)).toContain("42")
  })

  it("a v0.3 client streams a task to completed and follows it again (resubscribe, always a stream in 0.3)", async () => {
    const client = await clientOf("key-alice", true)
    const streamed = await collect(client.sendMessageStream(request(message("Compute 6 * 7"))))
    expect(streamed[0]!.payload?.$case).toBe("task")
    expect(lastStatus(streamed)).toBe(TaskState.TASK_STATE_COMPLETED)
    const id = (streamed[0]!.payload!.value as Task).id
    const again = await collect(client.resubscribeTask({ tenant: "", id }))
    expect(again[0]!.payload?.$case).toBe("task")
    expect((again[0]!.payload!.value as Task).status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
  })

  it("refuses in JSON-RPC's words what it cannot read: over the body limit, not JSON, another content type, an unknown task", async () => {
    const post = async (body: string, contentType = "application/json", version?: string) => {
      const r = await fetch(`${base()}/a2a`, {
        method: "POST",
        headers: {
          authorization: "Bearer key-alice",
          "content-type": contentType,
          ...(version ? { "a2a-version": version } : {})
        },
        body
      })
      return { status: r.status, body: await r.json() as { id: unknown; error?: { code: number; message: string } } }
    }
    const large = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x".repeat(2_000_000) } })
    )
    expect(large.status).toBe(413)
    expect(large.body.error).toMatchObject({ code: -32600, message: expect.stringContaining("request body over") })
    const notJson = await post("{ not json")
    expect(notJson.status).toBe(200)
    expect(notJson.body.error?.code).toBe(-32700)
    const notRequest = await post("[1, 2]", "application/json", "1.0")
    expect(notRequest.body.error?.code).toBe(-32600)
    const text = await post("{}", "text/plain")
    expect(text.body.error?.code).toBe(-32005)
    expect(text.body.error?.message).toContain("text/plain")
    const unknown = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "no-such-task" } }),
      "application/json",
      "1.0"
    )
    expect(unknown.status).toBe(200)
    expect(unknown.body).toMatchObject({ id: 7, error: { code: -32001 } })
    // 0.3's method names with no version header: the compatibility layer answers, in 0.3's error codes
    const legacyUnknown = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tasks/get", params: { id: "no-such-task" } })
    )
    expect(legacyUnknown.body).toMatchObject({ id: 8, error: { code: -32001 } })
    const nothingLeaks = JSON.stringify([large, notJson, text, unknown, legacyUnknown])
    expect(nothingLeaks).not.toMatch(/at \/|node_modules|SELECT/)
  })

  it("cancels a task, and refuses a wrong key", async () => {
    const client = await clientOf()
    const sent = await client.sendMessage(
      request(message("Compute 17 + 25"), { mode: "FULL", approvePlan: true })
    ) as Task
    const cancelled = await client.cancelTask({ tenant: "", id: sent.id, metadata: undefined })
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
    const wrong = await fetch(`${base()}/a2a`, {
      method: "POST",
      headers: { authorization: "Bearer nope", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: sent.id } })
    })
    expect(wrong.status).toBe(401)
  })
})
