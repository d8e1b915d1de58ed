import { Option, Redacted } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { noWebhooks } from "../../src/domain/Webhook.js"
import { launchBrowser } from "../support/browser.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

// A run's webhook attempts in the run viewer (#73.1): the refused attempt and the delivered retry, each with its status
const statuses = [500]
const receiver = createServer((req, res) => {
  req.resume()
  req.on("end", () => res.writeHead(statuses.shift() ?? 200).end())
})
let server: TestServer
let browser: Browser
let port = 0
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  port = (receiver.address() as AddressInfo).port
  server = await startServer({
    webhooks: {
      ...noWebhooks,
      hosts: [`127.0.0.1:${port}`],
      secret: Option.some(Redacted.make(`whsec_${Buffer.from("viewer").toString("base64")}`)),
      retryMs: 100
    }
  })
  browser = await launchBrowser()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
})

describe("webhooks in the run viewer", () => {
  it("a run's page lists each attempt at its webhook: the refusal, then the delivery", async () => {
    const started = await gql(
      server.url,
      `mutation($url: String!) { runTask(input: { task: "Compute 17 + 25", webhook: { url: $url } }) { id } }`,
      { url: `http://127.0.0.1:${port}/hooks` }
    )
    const id = started.body.data.runTask.id as string
    await awaitRun(server.url, id)
    const page = await browser.newPage()
    await page.goto(`${server.url.replace(/\/graphql$/, "")}/runs/${id}`, { waitUntil: "load" })
    // the page reads the run again as it is reloaded: the retry is made a moment after the end
    await expect.poll(async () => {
      await page.reload({ waitUntil: "load" })
      return page.getByTestId("webhooks").innerText().catch(() => "")
    }, { timeout: 30_000 }).toMatch(/attempt 2 · 200 · delivered/)
    const text = await page.getByTestId("webhooks").innerText()
    expect(text).toContain("run.finished · attempt 1 · 500 · the receiver answered 500")
  }, 60_000)
})
