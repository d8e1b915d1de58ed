import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import { launchBrowser } from "../support/browser.js"
import { reasoned } from "../support/scripts.js"
import { awaitRun, gql, startServer, type TestServer, untilStatus } from "../support/server.js"

/** The run viewer's pages: a stop where a person looks (#69.1), the files a run carried (#69.14), a waiting run and the conversations (#76.6). */
let server: TestServer
let browser: Browser
beforeAll(async () => {
  // each reasoning step takes 20 s: the run is running while the page is looked at
  server = await startServer({
    script: { [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 20_000 }] }
  })
  browser = await launchBrowser()
}, 16 * 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe("the viewer: Cancel (#69.1), a run's files (#69.14), waiting, conversations (#76.6)", () => {
  it(
    "a running run's page cancels it: the run ends CANCELLED and the button is gone; an ended run has none",
    async () => {
      const id = (await gql(server.url, `mutation { runTask(input: { task: "Explain 6 * 7", mode: FULL }) { id } }`))
        .body.data.runTask.id as string
      const base = server.url.replace(/\/graphql$/, "")
      const page = await browser.newPage()
      await page.goto(`${base}/runs/${id}`, { waitUntil: "load" })
      await page.getByTestId("run-status").filter({ hasText: "RUNNING" }).waitFor()
      // the deadline's gauge moves with the clock while the run runs, between the server's readings (#76.6)
      const deadline = page.getByTestId("gauge-deadline")
      const before = Number(await deadline.getAttribute("data-used"))
      // the page shows it moving on its own: waited for in the page's DOM, no sleep
      await page.waitForFunction(
        (least) => Number(document.querySelector("[data-testid=gauge-deadline]")?.getAttribute("data-used")) >= least,
        before + 1_000,
        { timeout: 10_000 }
      )
      expect(Number(await deadline.getAttribute("data-used"))).toBeGreaterThanOrEqual(before + 1_000)
      await page.getByTestId("cancel-run").click()
      await page.getByTestId("run-status").filter({ hasText: "CANCELLED" }).waitFor({ timeout: 15_000 })
      expect(await page.getByTestId("cancel-run").count()).toBe(0)
      expect((await awaitRun(server.url, id)).status).toBe("CANCELLED")
      await page.reload({ waitUntil: "load" })
      await page.getByTestId("run-status").filter({ hasText: "CANCELLED" }).waitFor()
      expect(await page.getByTestId("cancel-run").count()).toBe(0)
    },
    120_000
  )

  it("a run's page shows the files its task carried (#69.14)", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex").toString("base64")
    const id = (await gql(
      server.url,
      `mutation($a: [AttachmentInput!]) {
      runTask(input: { task: "Describe the chart", mode: SIMPLE, attachments: $a }) { id } }`,
      {
        a: [{ mediaType: "image/png", data: png, name: "chart.png" }]
      }
    )).body.data.runTask.id as string
    const page = await browser.newPage()
    await page.goto(`${server.url.replace(/\/graphql$/, "")}/runs/${id}`, { waitUntil: "load" })
    await page.getByTestId("run-files").waitFor()
    expect(await page.getByTestId("run-files").textContent()).toBe("files: chart.png (image/png)")
  }, 60_000)

  it(
    "a run waiting for a person is shown waiting, not as an error; a run that does not exist links back (#76.6)",
    async () => {
      const id = (await gql(
        server.url,
        `mutation { runTask(input: { task: "Explain 6 * 7", mode: FULL, approvePlan: true }) {
      id } }`
      )).body.data.runTask.id as string
      const base = server.url.replace(/\/graphql$/, "")
      const page = await browser.newPage()
      await page.goto(`${base}/runs/${id}`, { waitUntil: "load" })
      await page.getByTestId("run-status").filter({ hasText: "AWAITING_INPUT" }).waitFor({ timeout: 30_000 })
      const outcome = page.getByTestId("outcome")
      await outcome.waitFor()
      expect(await outcome.locator("h2").textContent()).toBe("Waiting")
      expect(await outcome.locator(".error").count()).toBe(0)
      // the plan's Approve and Reject stand apart, Reject not dressed as the default (#76.6)
      const approve = await page.getByRole("button", { name: "Approve plan" }).boundingBox()
      const reject = page.getByRole("button", { name: "Reject plan" })
      const rejectBox = await reject.boundingBox()
      expect(rejectBox!.x - (approve!.x + approve!.width)).toBeGreaterThanOrEqual(12)
      expect(await reject.getAttribute("class")).toContain("secondary")
      await page.goto(`${base}/runs/nope`, { waitUntil: "load" })
      await page.getByText("run nope does not exist").waitFor()
      expect(await page.getByRole("link", { name: "← runs" }).getAttribute("href")).toBe("/runs")
    },
    60_000
  )

  it("/threads lists the conversations, and the runs list links to it (#76.6)", async () => {
    const id = (await gql(
      server.url,
      `mutation { runTask(input: { task: "What is 6 * 7 plus 3?", threadId: "talk-1" }) {
      id } }`
    )).body.data.runTask.id as string
    await untilStatus(server.url, id, "CONVERGED")
    const page = await browser.newPage()
    await page.goto(`${server.url.replace(/\/graphql$/, "")}/runs`, { waitUntil: "load" })
    await page.getByRole("link", { name: "conversations" }).click()
    await page.getByTestId("threads").getByRole("link", { name: "talk-1" }).waitFor()
    expect(page.url()).toMatch(/\/threads$/)
    expect(await page.getByTestId("threads").innerText()).toMatch(/talk-1\s+1 turn\s+–\s+.*What is 6 \* 7 plus 3\?/)
    await page.getByTestId("threads").getByRole("link", { name: "talk-1" }).click()
    await page.getByTestId("thread-turns").getByText("What is 6 * 7 plus 3?").waitFor()
  }, 60_000)
})
