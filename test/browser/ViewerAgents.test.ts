import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import { launchBrowser } from "../support/browser.js"
import { planOut } from "../support/scripts.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

/**
 * Agents in the run viewer (#72): the list's agent column and filter (kept in the URL), a run's agent, the child runs
 * its steps made (agents as tools) and the parent a child was called by. The plans are scripted (the desk's hands its
 * one step to the math agent; the child's uses the calculator); the rest is the offline stand-in's.
 */
let server: TestServer
let browser: Browser
let base: string
beforeAll(async () => {
  const delegating = planOut([{
    id: "s1",
    d: "Ask the math agent",
    tool: "agent.math",
    input: { task: "Compute 6 * 7" }
  }])
  const computing = planOut([{ id: "s1", d: "Compute 6 * 7", tool: "calculator", input: { expression: "6 * 7" } }])
  server = await startServer({ script: { [PromptId.PLAN_GENERATION_USER]: [delegating, computing] } })
  base = server.url.replace(/\/graphql$/, "")
  browser = await launchBrowser()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

const save = (input: object) =>
  gql(server.url, `mutation($input: AgentInput!) { saveAgent(input: $input) { version } }`, { input })

describe("agents in the run viewer", () => {
  it("the list shows and filters by agent; a run's page shows its agent, its children and its parent", async () => {
    await save({ name: "math", tools: ["calculator"], mode: "SIMPLE", memory: false })
    await save({ name: "desk", tools: ["agent:math"], mode: "FULL", memory: false })
    const started = await gql(
      server.url,
      `mutation { runTask(input: { agent: "desk", task: "What is 6 * 7?" }) { id } }`
    )
    const id = started.body.data.runTask.id as string
    await awaitRun(server.url, id)
    const plain = await gql(server.url, `mutation { runTask(input: { task: "Compute 1 + 1", memory: false }) { id } }`)
    await awaitRun(server.url, plain.body.data.runTask.id)

    const page = await browser.newPage()
    await page.goto(`${base}/runs`, { waitUntil: "load" })
    await expect.poll(() => page.getByTestId("runs").innerText(), { timeout: 30_000 }).toContain("desk@1")
    await page.getByTestId("agent-filter").fill("desk")
    await page.getByTestId("agent-filter").press("Tab")
    await expect.poll(() => page.url()).toContain("agent=desk")
    await expect.poll(() => page.getByTestId("runs").locator("tr").count()).toBe(2) // a header and the desk's run
    expect(await page.getByTestId("runs").innerText()).not.toContain("Compute 1 + 1")
    await page.reload({ waitUntil: "load" })
    await expect.poll(() => page.getByTestId("agent-filter").inputValue()).toBe("desk")

    await page.goto(`${base}/runs/${id}`, { waitUntil: "load" })
    await expect.poll(() => page.getByTestId("run-agent").innerText(), { timeout: 30_000 }).toContain("agent desk@1")
    await expect.poll(() => page.getByTestId("run-children").innerText()).toContain("math")
    await page.getByTestId("run-children").locator("a").first().click()
    await expect.poll(() => page.url()).toContain(`${id}.p1.s1`)
    await expect.poll(() => page.getByTestId("run-agent").innerText(), { timeout: 30_000 }).toContain("agent math@1")
    await expect.poll(() => page.locator("p.meta").first().innerText()).toContain(`called by ${id}`)
    await page.close()
  }, 90_000)
})
