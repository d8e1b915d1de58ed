import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser } from "../support/browser.js"
import { startServerOnFailingStore } from "../support/failingStore.js"
import { gql, type TestServer } from "../support/server.js"

/** The viewer while a run waits for its store (#46): said on the page while it lasts, gone once the run goes on. */
let down = false
let server: TestServer
let browser: Browser
beforeAll(async () => {
  server = await startServerOnFailingStore(() => down)
  browser = await launchBrowser()
}, 16 * 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe("the run viewer while the store fails", () => {
  it("says the run waits for its store and why, then no more once it goes on", async () => {
    const id = (await gql(
      server.url,
      `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`
    )).body.data.runTask.id as string
    // the store fails from the run's first writes on: however slow the page is to open, the run is still waiting
    down = true
    const page = await browser.newPage()
    await page.goto(`${server.url.replace(/\/graphql$/, "")}/runs/${id}`, { waitUntil: "load" })
    const banner = page.getByTestId("store-wait")
    await banner.waitFor({ timeout: 20_000 })
    expect(await banner.innerText()).toContain("the disk holding the embedded database is full")
    down = false
    await banner.waitFor({ state: "detached", timeout: 20_000 })
    await page.getByTestId("run-status").filter({ hasText: "CONVERGED" }).waitFor()
    // afterwards the run's record says it waited, as an advisory
    expect(await page.getByTestId("advisories").innerText()).toMatch(/waited .* s for its store/)
    await page.close()
  }, 60_000)
})
