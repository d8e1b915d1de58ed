import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser } from "../support/browser.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

/** The viewer's memory (#44): a run's memories searched and forgotten on /memory; a run shows what it took. */
let server: TestServer
let browser: Browser
beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
}, 16 * 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

const run = async (task: string) => {
  const id = (await gql(server.url, `mutation($task: String!) { runTask(input: { task: $task }) { id } }`, { task }))
    .body.data.runTask.id as string
  await awaitRun(server.url, id, { query: `query($id: ID!) { run(id: $id) { status } }` })
  return id
}

describe("memory in the run viewer", () => {
  it("a run that reused a plan links its source; /memory lists, searches and forgets", async () => {
    const first = await run("Compute 17 + 25")
    const second = await run("Compute 17 + 25")
    const base = server.url.replace(/\/graphql$/, "")
    const page = await browser.newPage()
    await page.goto(`${base}/runs/${second}`, { waitUntil: "load" })
    const reused = page.getByTestId("plan-reused")
    await reused.waitFor({ timeout: 20_000 })
    expect(await reused.innerText()).toContain(`plan reused from ${first}`)
    expect(await reused.locator("a").getAttribute("href")).toBe(`/runs/${first}`)

    await page.goto(`${base}/memory`, { waitUntil: "load" })
    const rows = page.getByTestId("memory")
    await rows.first().waitFor({ timeout: 20_000 })
    expect(await page.getByTestId("memories").innerText()).toContain("42")
    await page.getByTestId("memory-search").fill("nothing like it")
    await page.getByTestId("memory-search").press("Enter")
    await page.getByTestId("no-memories").waitFor({ timeout: 20_000 })
    await page.getByTestId("memory-search").fill("compute 17")
    await page.getByTestId("memory-search").press("Enter")
    await rows.first().waitFor({ timeout: 20_000 })
    const before = await rows.count()
    await rows.first().getByTestId("forget").click()
    await page.waitForFunction(
      (n) => document.querySelectorAll("[data-testid=memory]").length === n - 1,
      before,
      { timeout: 20_000 }
    )
    await page.close()
  }, 60_000)
})
