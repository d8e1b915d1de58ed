import { execSync } from "node:child_process"
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/server.js"

const CHROMIUM = "/usr/bin/chromium"

/** Debian's chromium, installed by the suite when it can (root and apt); otherwise the failure says how. */
const ensureChromium = () => {
  if (existsSync(CHROMIUM)) return
  if (process.getuid?.() === 0) {
    execSync("apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium", {
      stdio: "inherit",
      timeout: 15 * 60_000
    })
    if (existsSync(CHROMIUM)) return
  }
  throw new Error(
    `Chromium is missing at ${CHROMIUM}: install it with "sudo apt-get install -y chromium" (Debian) and run the tests again`
  )
}

let server: TestServer
let browser: Browser
beforeAll(async () => {
  ensureChromium()
  server = await startServer()
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
}, 16 * 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe("GraphiQL in a browser", () => {
  it("opens with the example; runTask starts a run and runEvents streams it to the end", async () => {
    const page = await browser.newPage()
    await page.goto(server.url, { waitUntil: "load" })
    const editor = page.locator(".graphiql-query-editor")
    await editor.waitFor({ timeout: 60_000 })
    const textOf = async (l: typeof editor) => (await l.innerText()).replace(/\u00a0/g, " ")
    await expect.poll(() => textOf(editor), { timeout: 30_000 }).toContain("mutation Start")
    const text = await textOf(editor)
    const runId = text.match(/runId: "(demo-[a-z0-9]+)"/)![1]!

    const runOperation = async (name: string) => {
      await page.locator(".graphiql-query-editor").getByText(name, { exact: false }).first().click()
      await page.keyboard.press("Control+Enter")
    }
    await runOperation("mutation Start")
    const response = page.locator(".graphiql-response")
    await expect.poll(() => textOf(response), { timeout: 30_000 }).toContain(runId)

    await runOperation("subscription Follow")
    await expect.poll(() => textOf(response), { timeout: 60_000 }).toContain("RunFinished")
    const streamed = await textOf(response)
    expect(streamed).toContain("CONVERGED")
    expect(streamed).toContain("126")
    await page.screenshot({ path: "test/browser/graphiql.png" }).catch(() => undefined)
  }, 120_000)
})
