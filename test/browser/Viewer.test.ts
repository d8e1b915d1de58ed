import { Option, Redacted } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import { launchBrowser } from "../support/browser.js"
import { filesystemServer } from "../support/mcp.js"
import { answer, noIssues, planOut, profile, reasoned, verdict } from "../support/scripts.js"
import { gql, startServer, type TestServer } from "../support/server.js"

const ARTIFACTS = "test/browser/artifacts"
const TASK = "Compute 6 * 7 and explain it"

/**
 * Two execution passes and a refinement (a step added after the first pass, which stores the product: its call waits
 * for a person's approval, so the page sees the run mid-way however fast or slow the machine is).
 */
const twoPasses = () => ({
  [PromptId.TASKPROFILE_INFERENCE_USER]: [profile(3)],
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    { id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expression: "6 * 7" } },
    { id: "s2", d: "Explain the product of 6 and 7", deps: ["s1"] }
  ], TASK)],
  [PromptId.VALIDATION_SEMANTIC_USER]: [noIssues],
  [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 400 }],
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false), verdict(true)],
  [PromptId.RECURSIVE_REFINEMENT_USER]: [{
    output: {
      actions: [{
        actionType: "ADD",
        targetStepId: "s2",
        newStep: {
          stepId: "c1",
          description: "Store the product 42 in memory",
          tool: "memory.write",
          toolInput: { key: "product", value: 42 },
          dependencies: ["s1"]
        },
        justification: "verify the product"
      }]
    }
  }],
  [PromptId.ANSWER_SYNTHESIS_USER]: [answer("6 * 7 = 42", ["s1", "s2", "c1"])]
})

let server: TestServer
let browser: Browser
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  // the reference filesystem server's tools beside Aeon's own (AEON_MCP_CONFIG, as an operator sets it)
  const mcp = join(mkdtempSync(join(tmpdir(), "aeon-viewer-")), "mcp.json")
  writeFileSync(mcp, JSON.stringify({ mcpServers: { fs: filesystemServer(tmpdir()) } }))
  process.env.AEON_MCP_CONFIG = mcp
  server = await startServer({ script: twoPasses() })
  delete process.env.AEON_MCP_CONFIG
  browser = await launchBrowser()
}, 16 * 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe("the run viewer in a browser (#18.3, #18.4)", () => {
  it(
    "follows a run live: a request approved in the page, the timeline grows, the graph ends with every step's status, a call shows its prompt, gauges match usage",
    async () => {
      const start = await gql(
        server.url,
        `mutation { runTask(input: {
          task: "${TASK}", mode: FULL, budget: { ttl: 3, maxLlmCalls: 40 }, approvalTools: ["memory.write"]
        }) { id } }`
      )
      const id = start.body.data.runTask.id as string
      const base = server.url.replace(/\/graphql$/, "")
      const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } })
      await page.goto(`${base}/runs/${id}`, { waitUntil: "load" })

      // live: the run waits mid-way for the approval of c1's call; the page shows the first pass and the request
      const approvals = page.getByTestId("approvals")
      await expect.poll(() => approvals.innerText(), { timeout: 20_000 }).toContain(
        "c1: Store the product 42 in memory"
      )
      expect(await page.getByTestId("run-status").innerText()).toBe("AWAITING_INPUT")
      // each row's cells read apart: how innerText joins a grid's cells differs between Chromium builds
      const steps = page.getByTestId("timeline-step")
      expect(await steps.locator(".label").allInnerTexts()).toEqual(["s1", "s2", "c1"])
      const times = steps.locator(".time")
      expect(await times.allInnerTexts()).toEqual([
        expect.stringMatching(/^\d+\.\d\d s$/),
        expect.stringMatching(/^\d+\.\d\d s$/),
        "waiting for approval"
      ])
      const phases = page.getByTestId("timeline-phase")
      const earlyPhases = await phases.count()
      await page.screenshot({ path: `${ARTIFACTS}/viewer-running.png`, fullPage: true })
      // approved in the page: the run goes on, and its timeline grows without a reload
      await approvals.getByRole("button", { name: "Approve" }).click()
      await expect.poll(() => times.nth(2).innerText(), { timeout: 20_000 }).toMatch(/^\d+\.\d\d s$/)
      // the wait for the person is not the step's duration: the API says how long it waited, apart
      const c1 = (await gql(
        server.url,
        `query($id: ID!) { run(id: $id) { timeline { passes { steps { stepId durationMs waitedMs } } } } }`,
        { id }
      )).body.data.run.timeline.passes.flatMap((p: any) => p.steps).find((s: any) => s.stepId === "c1")
      expect(c1.waitedMs).toBeGreaterThan(0)
      await expect.poll(() => phases.count(), { timeout: 20_000 }).toBeGreaterThan(earlyPhases)
      await expect.poll(() => approvals.count()).toBe(0)
      await expect.poll(() => page.getByTestId("run-status").innerText(), { timeout: 30_000 }).toBe("CONVERGED")
      expect(await page.getByTestId("timeline-pass").count()).toBeGreaterThanOrEqual(3) // PLAN and two executions

      // the graph: every step of the final plan, with its final status
      const run = (await gql(
        server.url,
        `query($id: ID!) { run(id: $id) {
      usage { llmCalls inputTokens outputTokens costUsd steps }
      result { advisories }
      events { type payload } } }`,
        { id }
      )).body.data.run
      const finished = run.events.find((e: { type: string }) => e.type === "RunFinished").payload
      const finalSteps = finished.plan.steps as Array<{ stepId: string; status: string }>
      expect(finalSteps.map((s) => s.stepId)).toEqual(["s1", "s2", "c1"])
      await expect.poll(async () => {
        const nodes = page.getByTestId("plan-node")
        const shown: Array<[string | null, string | null]> = []
        for (let i = 0; i < await nodes.count(); i++) {
          shown.push([await nodes.nth(i).getAttribute("data-step"), await nodes.nth(i).getAttribute("data-status")])
        }
        return shown
      }, { timeout: 10_000 }).toEqual(finalSteps.map((s) => [s.stepId, s.status]))

      // gauges: what the API says the run used
      const used = async (name: string) => Number(await page.getByTestId(`gauge-${name}`).getAttribute("data-used"))
      await expect.poll(() => used("calls")).toBe(run.usage.llmCalls)
      expect(await used("tokens")).toBe(run.usage.inputTokens + run.usage.outputTokens)
      expect(await used("steps")).toBe(run.usage.steps)
      expect(await page.getByTestId("gauge-calls").getAttribute("data-cap")).toBe("40")

      // a model call, clicked, shows its prompt
      const planCall = page.getByTestId("call").filter({ hasText: "plan_generation_user" })
      await planCall.click()
      await expect.poll(() => page.getByTestId("call-prompt").innerText()).toContain(TASK)
      await expect.poll(() => page.getByTestId("answer").innerText()).toContain("6 * 7 = 42")
      // the run's advisories, as the API lists them (none: no section)
      const advisories = run.result.advisories as Array<string>
      if (advisories.length === 0) expect(await page.getByTestId("advisories").count()).toBe(0)
      else {
        expect(await page.getByTestId("advisories").locator("li").allInnerTexts()).toEqual(advisories)
      }
      // the convergence bars say what they are
      await expect.poll(() => page.getByTestId("convergence-legend").innerText()).toMatch(
        /completeness[\s\S]*coherence[\s\S]*consistency/
      )
      await page.screenshot({ path: `${ARTIFACTS}/viewer-finished.png`, fullPage: true })

      // "fork from here" on the last EVALUATE (after the approved call): the fork says where it comes from, its replayed calls
      await page.getByTestId("timeline-phase").filter({ hasText: "EVALUATE" }).last().getByTestId("fork-here").click()
      await expect.poll(() => page.url(), { timeout: 10_000 }).not.toContain(id)
      const origin = page.getByTestId("fork-origin")
      await expect.poll(() => origin.innerText(), { timeout: 20_000 }).toMatch(
        new RegExp(`^forked from ${id} at #\\d+`)
      )
      expect(await origin.locator("a").getAttribute("href")).toBe(`/runs/${encodeURIComponent(id)}`)
      await expect.poll(() => page.getByTestId("run-status").innerText(), { timeout: 30_000 }).toBe("CONVERGED")
      await expect.poll(() => origin.innerText(), { timeout: 10_000 }).toMatch(/\d+ calls replayed from its recordings/)
      await expect.poll(() => page.getByTestId("calls").innerText(), { timeout: 10_000 }).toMatch(
        /EVALUATE · \d+\+\d+ tokens · \d+ ms · replayed from the source/
      )
      await page.screenshot({ path: `${ARTIFACTS}/viewer-fork.png`, fullPage: true })

      // the root is the list (and the page's icon is served); the list links to it, its filter has every status
      const icon = await page.request.get(`${base}/favicon.ico`)
      expect(icon.status()).toBe(200)
      expect(icon.headers()["content-type"]).toBe("image/svg+xml")
      await page.goto(`${base}/`, { waitUntil: "load" })
      expect(new URL(page.url()).pathname).toBe("/runs")
      const statuses = await page.getByTestId("status-filter").locator("option").allInnerTexts()
      expect(statuses).toContain("AWAITING_INPUT")
      await expect.poll(() => page.getByTestId("runs").innerText()).toContain(id)
      // and lists the tools a run may call, the MCP server's with its name
      await expect.poll(() => page.getByTestId("tools").innerText()).toMatch(/fs\.read_text_file\s+fs\s+read-only/)
      await expect.poll(() => page.getByTestId("mcp-server").innerText()).toMatch(/MCP server fs \(stdio\): connected/)
      await page.close()
    },
    120_000
  )

  it("a plan approved in the page with its graph and forecast, then a call cap raised in the page (#35)", async () => {
    const own = await startServer({ script: twoPasses() })
    try {
      const start = await gql(
        own.url,
        `mutation { runTask(input: {
          task: "${TASK}", mode: FULL, approvePlan: true, interactive: true, budget: { ttl: 3, maxLlmCalls: 6 }
        }) { id } }`
      )
      const id = start.body.data.runTask.id as string
      const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } })
      await page.goto(`${own.url.replace(/\/graphql$/, "")}/runs/${id}`, { waitUntil: "load" })
      const plan = page.getByTestId("plan-approval")
      await expect.poll(() => plan.count(), { timeout: 20_000 }).toBe(1)
      expect(await plan.getByTestId("plan-node").count()).toBe(2)
      expect(await plan.getByTestId("plan-forecast").innerText()).toMatch(/s1\s+\$\d\.\d{4}/)
      await expect.poll(() => page.getByTestId("forecast").innerText()).toMatch(/expected \d+ calls/)
      // a refused edit is said in the page, and the request stays
      await plan.getByTestId("plan-edits").fill(`[{"actionType":"REMOVE","targetStepId":"s9"}]`)
      await plan.getByRole("button", { name: "Run with these edits" }).click()
      await expect.poll(() => page.getByTestId("request-error").innerText()).toContain("s9")
      await plan.getByRole("button", { name: "Approve plan" }).click()

      // six calls do not reach the end: the run asks for more in the page
      const extension = page.getByTestId("budget-extension")
      await expect.poll(() => extension.count(), { timeout: 20_000 }).toBe(1)
      expect(await extension.innerText()).toContain("has used 6 of its 6 llmCalls")
      expect(await page.getByTestId("run-status").innerText()).toBe("AWAITING_INPUT")
      await page.screenshot({ path: `${ARTIFACTS}/viewer-budget-extension.png`, fullPage: true })
      await extension.getByTestId("budget-cap").fill("60")
      await extension.getByRole("button", { name: "Raise and go on" }).click()
      await expect.poll(() => page.getByTestId("run-status").innerText(), { timeout: 30_000 }).toBe("CONVERGED")
      await expect.poll(() => page.getByTestId("gauge-calls").getAttribute("data-cap")).toBe("60")
      await page.close()
    } finally {
      await own.stop()
    }
  }, 120_000)

  it("with API keys, asks for the key and shows only that user's runs", async () => {
    const keyed = await startServer({
      script: twoPasses(),
      config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) }
    })
    try {
      const start = (key: string) =>
        gql(keyed.url, `mutation { runTask(input: { task: "${TASK}", mode: FULL }) { id } }`, {}, {
          authorization: `Bearer ${key}`
        }).then((r) => r.body.data.runTask.id as string)
      const alices = await start("key-alice")
      const bobs = await start("key-bob")
      const page = await browser.newPage()
      await page.goto(`${keyed.url.replace(/\/graphql$/, "")}/runs`, { waitUntil: "load" })
      await page.getByPlaceholder("API key").fill("key-alice")
      await page.getByRole("button", { name: "Open" }).click()
      await expect.poll(() => page.getByTestId("runs").innerText()).toContain(alices)
      expect(await page.getByTestId("runs").innerText()).not.toContain(bobs)
      // bob's run is not found with alice's key
      await page.goto(`${keyed.url.replace(/\/graphql$/, "")}/runs/${bobs}`, { waitUntil: "load" })
      await expect.poll(() => page.locator("main").innerText()).toContain(`run ${bobs} does not exist`)
      await page.close()
    } finally {
      await keyed.stop()
    }
  }, 60_000)

  it(
    "starts a run from the list's form, shows the answer while it is written, lists cost, duration and passes (#33)",
    async () => {
      const written = "Forty-two is six times seven: the calculator computed it and the explanation step said why, " +
        "in words a person can check without a calculator of their own."
      const paced = await startServer({
        script: {
          [PromptId.TASKPROFILE_INFERENCE_USER]: [profile(1)],
          [PromptId.PLAN_GENERATION_USER]: [planOut([
            { id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expression: "6 * 7" } }
          ], TASK)],
          [PromptId.VALIDATION_SEMANTIC_USER]: [noIssues],
          [PromptId.REASONING_STEP_USER]: [reasoned("6 * 7 = 42")],
          [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(true)],
          // about 2.5 s of writing, a chunk every 200 ms: the page sees it part-way whatever the machine
          [PromptId.ANSWER_SYNTHESIS_USER]: [{ ...answer(written, ["s1"]), chunkDelayMs: 200 }]
        }
      })
      try {
        const base = paced.url.replace(/\/graphql$/, "")
        const page = await browser.newPage({ viewport: { width: 1280, height: 1200 } })
        await page.goto(`${base}/runs`, { waitUntil: "load" })
        const form = page.getByTestId("new-run")
        await form.locator("textarea[name=task]").fill(TASK)
        await form.locator("select[name=mode]").selectOption("FULL")
        await form.locator("input[name=maxCostUsd]").fill("0.5")
        await form.getByRole("button", { name: "Start" }).click()
        await page.waitForURL(/\/runs\/[^/]+$/)
        const id = decodeURIComponent(page.url().split("/runs/")[1]!)
        // part of the answer, as it is being written
        const live = page.getByTestId("live-text")
        await expect.poll(async () => {
          const text = (await live.count()) > 0 ? await live.innerText() : ""
          return text !== "" && written.startsWith(text) && text.length < written.length
        }, { timeout: 20_000, interval: 50 }).toBe(true)
        await page.screenshot({ path: `${ARTIFACTS}/viewer-writing.png`, fullPage: true })
        await expect.poll(() => page.getByTestId("run-status").innerText(), { timeout: 30_000 }).toBe("CONVERGED")
        await expect.poll(() => page.getByTestId("answer").innerText()).toContain(written)
        await expect.poll(() => page.getByTestId("live-output").count()).toBe(0)
        // the run was started with the form's input
        const run = (await gql(
          paced.url,
          `query($id: ID!) { run(id: $id) { mode usage { costUsd }
        timeline { elapsedMs budget { name cap } } } }`,
          { id }
        )).body.data.run
        expect(run.mode).toBe("FULL")
        expect(run.timeline.budget.find((g: { name: string }) => g.name === "cost").cap).toBe(0.5)
        // the list: passes, cost and duration of the run
        await page.goto(`${base}/runs`, { waitUntil: "load" })
        const row = page.getByTestId("runs").locator("tr").filter({ hasText: id })
        await expect.poll(() => row.getByTestId("run-passes").innerText()).toBe("1")
        expect(await row.getByTestId("run-cost").innerText()).toBe(`$${run.usage.costUsd.toFixed(4)}`)
        expect(await row.getByTestId("run-duration").innerText()).toBe(
          `${(run.timeline.elapsedMs / 1000).toFixed(1)} s`
        )
        // a bad input is refused in the form, with the server's coded message
        await page.getByTestId("new-run").locator("textarea[name=task]").fill("   ")
        await page.getByTestId("new-run").getByRole("button", { name: "Start" }).click()
        await expect.poll(() => page.getByTestId("new-run-error").innerText()).toContain("task must not be empty")
        await page.close()
      } finally {
        await paced.stop()
      }
    },
    90_000
  )
})
