import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser } from "../support/browser.js"
import { gql, startServer, type TestServer } from "../support/server.js"

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

describe("GraphiQL in a browser", () => {
  it("opens with the example; runTask starts a run and runEventBatches streams it to the end", async () => {
    const page = await browser.newPage()
    // what the page's subscriptions send and receive (the response pane draws only the lines in view)
    const [sent, received] = [[] as Array<string>, [] as Array<string>]
    page.on("websocket", (ws) => {
      ws.on("framesent", (f) => void sent.push(String(f.payload)))
      ws.on("framereceived", (f) => void received.push(String(f.payload)))
    })
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

    // the run ended before Follow: its whole log is replayed, one message (under load it may still be running when the
    // mutation's answer shows; a live run's later batches would replace the first in the pane)
    await expect.poll(
      async () => (await gql(server.url, `{ run(id: "${runId}") { status } }`)).body.data?.run?.status,
      {
        timeout: 60_000
      }
    ).toBe("CONVERGED")
    // and stored as ended: the runs list reads the store, written with RunFinished in one transaction (a run's status
    // in memory leads its store by its last write)
    await expect.poll(
      async () =>
        JSON.stringify(
          (await gql(server.url, `{ runs(status: CONVERGED, first: 20) { edges { node { id } } } }`)).body
        ),
      { timeout: 60_000 }
    ).toContain(runId)
    await runOperation("subscription Follow")
    await expect.poll(() => textOf(response), { timeout: 60_000 }).toContain("RunStarted")
    // the whole run comes in one message, shown whole, not only its last event (#60 item 9): a burst is one message
    await expect.poll(() => received.some((f) => f.includes("RunStarted") && f.includes("RunFinished")), {
      timeout: 60_000,
      message: "one message with the whole run"
    }).toBe(true)
    const streamed = received.find((f) => f.includes("RunFinished"))!
    expect(streamed).toContain("CONVERGED")
    expect(streamed).toContain("126")

    // ▶ Start again: a new run, its id the demo's with -1 (#60 item 6); Follow goes to it
    await runOperation("mutation Start")
    await expect.poll(() => textOf(response), { timeout: 30_000 }).toContain(`${runId}-1`)
    expect(await textOf(response)).not.toContain("RunIdTakenError")
    // the editor shows the id that was sent (#76 item 6), in Start and in the operations that follow it
    const shown = await textOf(editor)
    expect(shown).toContain(
      `runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL, runId: "${runId}-1" })`
    )
    expect(shown).toContain(`runEventBatches(runId: "${runId}-1"`)
    expect(shown).not.toContain(`"${runId}"`)
    received.length = 0
    await runOperation("subscription Follow")
    await expect.poll(() => sent.some((f) => f.includes(`${runId}-1`) && f.includes("runEventBatches")), {
      timeout: 30_000,
      message: "Follow sent for the new run"
    }).toBe(true)
    await expect.poll(() => received.some((f) => f.includes("RunFinished")), { timeout: 60_000 }).toBe(true)
    await page.screenshot({ path: "test/browser/graphiql.png" }).catch(() => undefined)

    // a reload brings the tabs back with a fresh demo id: Start works again (no id already taken)
    await page.reload({ waitUntil: "load" })
    // the first tab is the example (its title is an operation's name: which one depends on GraphiQL's version)
    await page.locator(".graphiql-tab-button").first().click()
    await page.locator(".graphiql-query-editor").waitFor({ timeout: 60_000 })
    await expect.poll(() => textOf(page.locator(".graphiql-query-editor")), { timeout: 30_000 }).toContain(
      "mutation Start"
    )
    const reloaded = (await textOf(page.locator(".graphiql-query-editor"))).match(/runId: "(demo-[a-z0-9]+)"/)![1]!
    expect(reloaded).not.toBe(runId)
    // the click that places the cursor in the operation can land before the editor is ready after a reload; GraphiQL
    // then answers "Cannot infer operation" without sending anything, and the operation is run again
    for (let attempt = 0; attempt < 5; attempt++) {
      await runOperation("mutation Start")
      await expect.poll(() => textOf(response), { timeout: 30_000 }).toMatch(new RegExp(`${reloaded}|errors`))
      if (!(await textOf(response)).includes("Cannot infer operation")) break
      await page.waitForTimeout(500)
    }
    expect(await textOf(response)).toContain(reloaded)
    expect(await textOf(response)).not.toContain("RunIdTakenError")
  }, 120_000)
})
