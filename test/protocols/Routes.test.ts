import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/server.js"

/**
 * The protocols' routes on the edge's router: a browser page of another origin on this machine calls them as it calls
 * /graphql (a preflight answered, the response readable, the run's id exposed), a path no protocol has is not found,
 * a route's method is the protocol's to refuse, in its words.
 */
let server: TestServer
const base = () => server.url.replace(/\/graphql$/, "")
beforeAll(async () => {
  server = await startServer({})
})
afterAll(() => server?.stop())

describe("the protocols' routes", () => {
  it("a preflight from a page of another origin is answered, and the response says it may read it", async () => {
    const origin = "http://localhost:5173"
    const preflight = await fetch(`${base()}/api/chat`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe(origin)
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST")
    expect(preflight.headers.get("access-control-allow-credentials")).toBe("true")
    const models = await fetch(`${base()}/v1/models`, { headers: { origin } })
    expect(models.status).toBe(200)
    expect(models.headers.get("access-control-allow-origin")).toBe(origin)
    expect(models.headers.get("access-control-expose-headers")).toBe("x-aeon-run-id")
    // a streamed reply carries them too, with the run's id
    const streamed = await fetch(`${base()}/v1/chat/completions`, {
      method: "POST",
      headers: { origin, "content-type": "application/json" },
      body: JSON.stringify({ model: "aeon", stream: true, messages: [{ role: "user", content: "Compute 6 * 7" }] })
    })
    expect(streamed.headers.get("content-type")).toBe("text/event-stream")
    expect(streamed.headers.get("access-control-allow-origin")).toBe(origin)
    expect(streamed.headers.get("x-aeon-run-id")).toBeTruthy()
    expect(await streamed.text()).toMatch(/42[\s\S]*data: \[DONE\]\n\n$/)
  })

  it("a path no protocol has is not found; a route's other method is refused in the protocol's words", async () => {
    expect((await fetch(`${base()}/v1/embeddings`, { method: "POST" })).status).toBe(404)
    const get = await fetch(`${base()}/v1/chat/completions`)
    expect(get.status).toBe(405)
    expect((await get.json()).error.code).toBe("method_not_allowed")
    const agUi = await fetch(`${base()}/ag-ui`)
    expect(agUi.status).toBe(405)
    expect((await agUi.json()).error.code).toBe("METHOD_NOT_ALLOWED")
    const a2a = await fetch(`${base()}/a2a`)
    expect(a2a.status).toBe(405)
    expect((await a2a.json()).error.code).toBe(-32600)
  })

  it("a run's stream is resumed by its id, encoded in the path (204: nothing of the caller's to resume)", async () => {
    const res = await fetch(`${base()}/api/chat/${encodeURIComponent("no such run")}/stream`)
    expect(res.status).toBe(204)
  })
})

describe("a coded failure on every protocol", () => {
  it("is the same HTTP status on each (a user past their runs per day: 429), said in each protocol's words", async () => {
    process.env.AEON_QUOTAS = "quinn:runs=1/day"
    const quota = await startServer({ config: { apiKeys: Option.some(Redacted.make("key-quinn:quinn")) } })
      .finally(() => delete process.env.AEON_QUOTAS)
    try {
      const at = quota.url.replace(/\/graphql$/, "")
      const post = (path: string, body: unknown) =>
        fetch(`${at}${path}`, {
          method: "POST",
          headers: { authorization: "Bearer key-quinn", "content-type": "application/json" },
          body: JSON.stringify(body)
        })
      const user = (text: string) => [{ role: "user", content: text }]
      // the one run of the day
      expect((await post("/v1/chat/completions", { model: "aeon", messages: user("Compute 6 * 7") })).status).toBe(200)
      const openai = await post("/v1/chat/completions", { model: "aeon", messages: user("Compute 6 * 8") })
      expect(openai.status).toBe(429)
      expect((await openai.json()).error.code).toBe("QuotaExceededError")
      const agUi = await post("/ag-ui", {
        threadId: "t-quota",
        runId: "r-quota",
        messages: [{ id: "m1", role: "user", content: "Compute 6 * 9" }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {}
      })
      expect(agUi.status).toBe(429)
      expect((await agUi.json()).error.code).toBe("QuotaExceededError")
      const chat = await post("/api/chat", {
        messages: [{ role: "user", parts: [{ type: "text", text: "Compute 7 * 7" }] }]
      })
      expect(chat.status).toBe(429)
      expect((await chat.json()).error.code).toBe("QuotaExceededError")
    } finally {
      await quota.stop()
    }
  })
})
