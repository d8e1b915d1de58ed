import { serverAudits } from "graphql-http"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exited, startProcess } from "../support/process.js"
import { startServer } from "../support/server.js"

// A GraphQL document that does not parse is the client's mistake: the parser's own message with a code, and the
// status the GraphQL-over-HTTP spec gives (200 for application/json, 400 for application/graphql-response+json).
// Checked in process and against the built server (`npm start`'s bundle), where a second copy of graphql once made
// the parser's error an "Unexpected error." 500.
const servers: Record<string, { url: string; stop: () => Promise<unknown> }> = {}
beforeAll(async () => {
  const inProcess = await startServer()
  servers["in process"] = { url: inProcess.url, stop: inProcess.stop }
  const built = startProcess({
    AEON_PORT: "0",
    AEON_DATA_DIR: join(mkdtempSync(join(tmpdir(), "aeon-parse-")), "data")
  })
  servers["the built server"] = {
    url: await built.url,
    stop: () => (built.child.kill("SIGTERM"), exited(built.child))
  }
}, 90_000)
afterAll(() => Promise.all(Object.values(servers).map((s) => s.stop())))

const post = (url: string, query: string, accept: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept },
    body: JSON.stringify({ query })
  })
    .then(async (res) => ({ status: res.status, body: await res.json() as any }))

describe.each(["in process", "the built server"])("a document that does not parse (%s)", (which) => {
  it.each(["{", "{ 8f }", "query {"])(
    "%j: GRAPHQL_PARSE_FAILED with the parser's message, 200 / 400",
    async (document) => {
      const { url } = servers[which]!
      const json = await post(url, document, "application/json")
      expect(json.status).toBe(200)
      expect(json.body.errors[0].extensions.code).toBe("GRAPHQL_PARSE_FAILED")
      expect(json.body.errors[0].message).toMatch(/^Syntax Error: /)
      const response = await post(url, document, "application/graphql-response+json")
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions.code).toBe("GRAPHQL_PARSE_FAILED")
    }
  )

  it("a document over the token limit keeps its own code", async () => {
    const long = `{ ${Array.from({ length: 6000 }, () => "health { ok }").join(" ")} }`
    const res = await post(servers[which]!.url, long, "application/json")
    expect(res.body.errors[0].extensions.code).toBe("QUERY_TOO_LONG")
  })

  it("passes every graphql-http server audit", async () => {
    const audits = serverAudits({
      url: servers[which]!.url,
      fetchFn: (input: any, init: any = {}) =>
        fetch(input, { ...init, headers: { ...(init.headers ?? {}), "x-graphql-yoga-csrf": "1" } })
    })
    const results = await Promise.all(audits.map(async (a) => ({ name: a.name, result: await a.fn() })))
    expect(results.filter((r) => r.result.status !== "ok").map((r) => r.name)).toEqual([])
  }, 60_000)
})
