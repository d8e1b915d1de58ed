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
  it(
    "opens with the example; each Start starts a run whose id the other operations take; Follow streams it",
    async () => {
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
      const response = page.locator(".graphiql-response")

      /** Runs the operation `name` (its first line's start): the cursor put in it through Monaco's API, then ⌃⏎. */
      const runOperation = async (name: string) => {
        await page.waitForFunction(
          (start) =>
            (window as any).monaco?.editor.getEditors().some((e: any) =>
              e.getModel()?.uri.path.endsWith("operation.graphql") &&
              e.getModel().getLinesContent().some((l: string) => l.startsWith(start))
            ),
          name,
          { timeout: 60_000 }
        )
        await page.evaluate((start) => {
          const ed = (window as any).monaco.editor.getEditors().find((e: any) =>
            e.getModel()?.uri.path.endsWith("operation.graphql")
          )
          const line = ed.getModel().getLinesContent().findIndex((l: string) => l.startsWith(start)) + 1
          ed.focus()
          ed.setPosition({ lineNumber: line, column: 3 })
        }, name)
        await page.keyboard.press("Control+Enter")
      }
      /** The tab's variables as the editor holds them. */
      const variables = () =>
        page.evaluate(() =>
          (window as any).monaco.editor.getModels().find((m: any) => m.uri.path.endsWith("variables.json"))?.getValue()
        )
      /** A Start run: the id its response shows, once it is the tab's runId. */
      const started = async (previous?: string) => {
        await runOperation("mutation Start")
        let id = ""
        await expect.poll(async () => {
          id = (await textOf(response)).match(/"id": "([0-9a-f-]{36})"/)?.[1] ?? ""
          return id !== "" && id !== previous
        }, { timeout: 30_000 }).toBe(true)
        await expect.poll(variables, { timeout: 30_000 }).toContain(id)
        return id
      }

      const runId = await started()
      // the run ended before Follow: its whole log is replayed, one message
      await expect.poll(
        async () => (await gql(server.url, `{ run(id: "${runId}") { status } }`)).body.data?.run?.status,
        { timeout: 60_000 }
      ).toBe("CONVERGED")
      // and stored as ended: the runs list reads the store, written with RunFinished in one transaction
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
      expect(sent.some((f) => f.includes("runEventBatches") && f.includes(runId))).toBe(true)
      const streamed = received.find((f) => f.includes("RunFinished"))!
      expect(streamed).toContain("CONVERGED")
      expect(streamed).toContain("126")

      // ▶ Start again: a new run (#60 item 6), its id now the tab's runId (#76 item 6); Follow goes to it
      const second = await started(runId)
      expect(await textOf(response)).not.toContain("RunIdTakenError")
      received.length = 0
      await runOperation("subscription Follow")
      await expect.poll(() => sent.some((f) => f.includes(second) && f.includes("runEventBatches")), {
        timeout: 30_000,
        message: "Follow sent for the new run"
      }).toBe(true)
      await expect.poll(() => received.some((f) => f.includes("RunFinished")), { timeout: 60_000 }).toBe(true)
      await page.screenshot({ path: "test/browser/graphiql.png" }).catch(() => undefined)

      // a reload brings the tab back: Start starts another run
      await page.reload({ waitUntil: "load" })
      await page.locator(".graphiql-tab-button").first().click()
      const third = await started(second)
      expect([runId, second]).not.toContain(third)
    },
    120_000
  )
})
