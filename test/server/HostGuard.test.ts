import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { startServer, type TestServer } from "../support/server.js"

// A web page whose name resolves to 127.0.0.1 (DNS rebinding) sends its own name as Host and Origin: a server without
// API keys answers only this machine's names and those AEON_ALLOWED_HOSTS lists, on every route.
let server: TestServer
beforeAll(async () => {
  server = await startServer({ config: { allowedHosts: ["aeon.internal"] } })
})
afterAll(() => server?.stop())

const send = (path: string, headers: Record<string, string>, body?: string) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const url = new URL(server.url)
    const req = request(
      { host: url.hostname, port: url.port, path, method: body ? "POST" : "GET", headers },
      (res) => {
        let text = ""
        res.on("data", (c) => (text += c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

const query = JSON.stringify({ query: `mutation { runTask(input: { task: "Compute 6 * 7" }) { id } }` })
const json = { "content-type": "application/json" }

describe("a server without API keys and a foreign Host or Origin", () => {
  it("refuses GraphQL over HTTP, the viewer and GraphiQL with 403 HOST_NOT_ALLOWED, starting nothing", async () => {
    const before = await send("/graphql", json, JSON.stringify({ query: "{ runs { edges { node { id } } } }" }))
    const runsBefore = JSON.parse(before.text).data.runs.edges.length
    const foreign: Array<Record<string, string>> = [
      { host: "evil.example.com" },
      { host: "127.0.0.1", origin: "http://evil.example.com" },
      { host: "evil.example.com", origin: "http://evil.example.com" }
    ]
    for (const headers of foreign) {
      const mutation = await send("/graphql", { ...json, ...headers }, query)
      expect(mutation.status).toBe(403)
      expect(JSON.parse(mutation.text).errors[0].extensions.code).toBe("HOST_NOT_ALLOWED")
      expect((await send("/runs", { ...headers, accept: "text/html" })).status).toBe(403)
      expect((await send("/graphql", { ...headers, accept: "text/html" })).status).toBe(403)
    }
    const after = await send("/graphql", json, JSON.stringify({ query: "{ runs { edges { node { id } } } }" }))
    expect(JSON.parse(after.text).data.runs.edges.length).toBe(runsBefore)
  })

  it("refuses the WebSocket upgrade from a foreign Origin", async () => {
    const url = server.url.replace("http", "ws")
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(url, "graphql-transport-ws", { origin: "http://evil.example.com" })
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0))
      ws.on("open", () => (ws.close(), resolve(101)))
      ws.on("error", () => {})
    })
    expect(refused).toBe(403)
    const accepted = await new Promise<number>((resolve) => {
      const ws = new WebSocket(url, "graphql-transport-ws", { origin: `http://127.0.0.1` })
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0))
      ws.on("open", () => (ws.close(), resolve(101)))
    })
    expect(accepted).toBe(101)
  })

  it("answers localhost, 127.0.0.1, [::1] and a host AEON_ALLOWED_HOSTS lists", async () => {
    for (const host of ["localhost", "127.0.0.1:4000", "[::1]:4000", "aeon.internal"]) {
      const res = await send(
        "/graphql",
        { ...json, host, origin: `http://${host}` },
        JSON.stringify({ query: "{ health { ok } }" })
      )
      expect(res.status, host).toBe(200)
      expect(JSON.parse(res.text).data.health.ok).toBe(true)
    }
  })
})
