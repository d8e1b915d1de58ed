import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser } from "../support/browser.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

/** The viewer says what a run's guardrails did (#71 item 6), never what they matched. The offline stand-in answers. */
let server: TestServer
let browser: Browser
let base: string
beforeAll(async () => {
  server = await startServer({
    guardrails: {
      input: [{ type: "pii", action: "redact", kinds: ["email"] }],
      output: [{ type: "denylist", name: "no-answers", action: "block", words: ["42"] }]
    }
  })
  base = server.url.replace(/\/graphql$/, "")
  browser = await launchBrowser()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe("the viewer's guardrails", () => {
  it("lists each trigger in words; a blocked answer says which guardrail ended the run", async () => {
    const r = await gql(
      server.url,
      `mutation { runTask(input: { task: "Compute 6 * 7 for ana.lopez@example.org", mode: FULL, memory: false }) { id } }`
    )
    const id = r.body.data.runTask.id as string
    expect((await awaitRun(server.url, id)).status).toBe("FAILED")
    const page = await browser.newPage()
    await page.goto(`${base}/runs/${id}`, { waitUntil: "load" })
    const section = page.getByTestId("guardrails")
    await expect.poll(() => section.innerText(), { timeout: 30_000 }).toContain(
      "guardrail pii redacted email at the input: <EMAIL_1>"
    )
    expect(await section.innerText()).toContain("guardrail no-answers blocked word at the output")
    expect(await page.getByTestId("outcome").innerText()).toContain(
      "failed (GUARDRAIL): guardrail no-answers blocked the output: it holds word"
    )
    expect(await page.content()).not.toContain("ana.lopez@example.org")
    await page.close()
  }, 60_000)
})
