import { Option, Redacted } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser } from "../support/browser.js"
import { startServer, type TestServer } from "../support/server.js"

// A page of another origin (another port) calls the protocols from a real browser, as it calls /graphql: CORS lets it
// read the answer (a server with API keys; one without answers only this machine's origins, as on every route).
let server: TestServer
let page: Server
let pageUrl = ""
let browser: Browser
beforeAll(async () => {
  server = await startServer({ config: { apiKeys: Option.some(Redacted.make("key-alice:alice")) } })
  page = createServer((_, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><p>app</p>"))
  await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve))
  pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`
  browser = await launchBrowser()
}, 16 * 60_000)
afterAll(async () => {
  await browser?.close()
  page?.close()
  await server?.stop()
})

describe("the protocols from a browser page of another origin", () => {
  it("/v1/chat/completions answers it, its run id readable; /ag-ui streams to it", async () => {
    const tab = await browser.newPage()
    await tab.goto(pageUrl, { waitUntil: "load" })
    const base = server.url.replace(/\/graphql$/, "")
    const result = await tab.evaluate(async (base) => {
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer key-alice" },
        body: JSON.stringify({ model: "aeon", messages: [{ role: "user", content: "Compute 17 + 25" }] })
      })
      const body = await res.json()
      const agui = await fetch(`${base}/ag-ui`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", authorization: "Bearer key-alice" },
        body: JSON.stringify({
          threadId: "t",
          runId: "browser-run",
          messages: [{ id: "m", role: "user", content: "Compute 6 * 7" }],
          tools: [],
          context: [],
          state: {},
          forwardedProps: {}
        })
      })
      return {
        status: res.status,
        header: res.headers.get("x-aeon-run-id"),
        id: body.id,
        content: body.choices[0].message.content,
        agui: await agui.text()
      }
    }, base)
    expect(result.status).toBe(200)
    expect(result.header).toBe(result.id)
    expect(result.content).toContain("42")
    expect(result.agui).toContain("RUN_FINISHED")
  })
})
