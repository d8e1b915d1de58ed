import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser } from "../support/browser.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

/**
 * What the viewer said too little of (#60 items 3, 4): why a run ended, where a person looks first; the list's
 * filters kept in the URL (a reload keeps them), an empty list that says so, the runs past the first 50. The
 * offline stand-in answers (a labeled stand-in).
 */
let server: TestServer
let browser: Browser
let base: string
beforeAll(async () => {
  server = await startServer()
  base = server.url.replace(/\/graphql$/, "")
  browser = await launchBrowser()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

const start = async (task: string) => {
  const r = await gql(server.url, `mutation($task: String!) { runTask(input: { task: $task }) { id } }`, { task })
  return r.body.data.runTask.id as string
}

describe("the run viewer says why, and lists every run (#60)", () => {
  it("a run that did not converge shows how it stopped and each invalid step's reason, first", async () => {
    const id = await start("What is the capital of France?")
    expect((await awaitRun(server.url, id)).status).toBe("NOT_CONVERGED")
    const page = await browser.newPage()
    await page.goto(`${base}/runs/${id}`, { waitUntil: "load" })
    const outcome = page.getByTestId("outcome")
    await expect.poll(() => outcome.innerText(), { timeout: 30_000 }).toContain("stopped: its passes ran out")
    expect(await page.getByTestId("step-reason").first().innerText()).toMatch(/^s1 · invalid: .*cannot do/)
    // where a person looks first: before the budget gauges and the answer
    const order = await page.evaluate(() =>
      ["outcome", "gauges", "answer"].map((t) =>
        [...document.querySelectorAll("[data-testid]")].findIndex((e) => e.getAttribute("data-testid") === t)
      )
    )
    expect(order[0]).toBeLessThan(order[1]!)
    await page.close()
  }, 60_000)

  it("a typed run's answer is shown as its value's JSON (#55)", async () => {
    const schema = { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] }
    const r = await gql(
      server.url,
      `mutation($s: JSON) { runTask(input: { task: "Compute 2 + 3", memory: false, outputSchema: $s }) { id } }`,
      { s: schema }
    )
    const id = r.body.data.runTask.id as string
    expect((await awaitRun(server.url, id)).status).toBe("CONVERGED")
    const page = await browser.newPage()
    await page.goto(`${base}/runs/${id}`, { waitUntil: "load" })
    await expect.poll(() => page.getByTestId("answer-data").innerText(), { timeout: 30_000 }).toBe(
      JSON.stringify({ sum: 5 }, null, 2)
    )
    await page.close()
  }, 60_000)

  it("filters live in the URL, an empty list says so, and runs past 50 come with 'more runs'", async () => {
    for (let i = 0; i < 52; i++) await start(`Compute ${i} + 1`)
    const page = await browser.newPage()
    await page.goto(`${base}/runs`, { waitUntil: "load" })
    const rows = () => page.getByTestId("runs").locator("tr").count()
    await expect.poll(rows, { timeout: 30_000 }).toBe(51) // a header and 50 runs
    await page.getByTestId("more-runs").click()
    await expect.poll(rows).toBeGreaterThanOrEqual(54) // 53 runs in all
    expect(await page.getByTestId("more-runs").count()).toBe(0)

    await page.getByTestId("status-filter").selectOption("NOT_CONVERGED")
    await expect.poll(() => page.url()).toContain("?status=NOT_CONVERGED")
    await page.reload({ waitUntil: "load" })
    await expect.poll(() => page.getByTestId("status-filter").inputValue()).toBe("NOT_CONVERGED")
    await expect.poll(() => page.getByTestId("runs").innerText()).toContain("What is the capital of France?")
    expect(await page.getByTestId("runs").innerText()).not.toContain("Compute 3 + 1")

    await page.getByPlaceholder("user").fill("nobody")
    await page.getByPlaceholder("user").dispatchEvent("change")
    await expect.poll(() => page.getByTestId("no-runs").innerText()).toBe(
      "no run with status NOT_CONVERGED of user nobody"
    )
    expect(page.url()).toContain("user=nobody")
    await page.close()
  }, 120_000)

  it("a turn links to its thread's page, which lists the turns in order (#56)", async () => {
    const turn = async (task: string) => {
      const r = await gql(
        server.url,
        `mutation($task: String!) { runTask(input: { task: $task, threadId: "viewer-thread" }) { id } }`,
        { task }
      )
      const id = r.body.data.runTask.id as string
      await awaitRun(server.url, id)
      return id
    }
    await turn("Compute 6 * 7")
    const second = await turn("Compute 8 * 9")
    const page = await browser.newPage()
    await page.goto(`${base}/runs/${second}`, { waitUntil: "load" })
    const line = page.getByTestId("conversation")
    await expect.poll(() => line.innerText(), { timeout: 30_000 }).toMatch(
      /turn 2 of thread viewer-thread · 2 earlier messages/
    )
    await line.getByRole("link").click()
    await page.waitForURL(/\/threads\/viewer-thread$/)
    const turns = page.getByTestId("thread-turns")
    await expect.poll(() => turns.innerText(), { timeout: 30_000 }).toMatch(/Compute 6 \* 7[\s\S]*Compute 8 \* 9/)
    await page.close()
  }, 60_000)
})
