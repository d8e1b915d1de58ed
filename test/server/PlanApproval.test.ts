import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { backend } from "../support/database.js"
import { exited, scriptedServerEnv, startProcess } from "../support/process.js"
import { convergingScript, seedScriptFile, verdict } from "../support/scripts.js"
import { awaitRun, gql, startServer, untilEvent, untilStatus } from "../support/server.js"

const FIGURES = "{ llmCalls tokens costUsd wallMs }"
const FORECAST = `{ expected ${FIGURES} worstCase ${FIGURES} perStep { stepId expected ${FIGURES} } basis similarRuns }`
const RUN = `query($id: ID!) {
  run(id: $id) {
    status
    result { terminationReason error }
    usage { llmCalls costUsd }
    plan { steps { stepId } }
    forecast ${FORECAST}
    forecastError { costUsd withinWorstCase }
    pendingPlanApproval { requestId plan { steps { stepId tool } } validationReport { overallSeverity } forecast ${FORECAST} }
    events { type ... on StepStartedEvent { stepId } ... on ForecastMadeEvent { forecast { expected { llmCalls } } } }
  }
}`
const RESPOND = `mutation($runId: ID!, $requestId: ID!, $decision: ApprovalDecision!, $input: JSON, $reason: String) {
  respondToApproval(runId: $runId, requestId: $requestId, decision: $decision, input: $input, reason: $reason) {
    id status
  }
}`
const START = `mutation($input: RunTaskInput!) { runTask(input: $input) { id } }`
const task = { task: "Compute 6 * 7 and explain it", mode: "FULL" }

const finished = (url: string, id: string) => awaitRun(url, id, { query: RUN })
const awaiting = (url: string, id: string) => untilStatus(url, id, "AWAITING_INPUT", { query: RUN })

describe("plan approval and forecast through the API (#35)", () => {
  it("dryRun: the plan and its forecast, CANCELLED (dry_run), no step run", async () => {
    const server = await startServer({ script: convergingScript() })
    try {
      const id = (await gql(server.url, START, { input: { ...task, dryRun: true } })).body.data.runTask.id
      const run = await finished(server.url, id)
      expect(run.status).toBe("CANCELLED")
      expect(run.result.terminationReason).toBe("dry_run")
      expect(run.plan.steps.map((s: any) => s.stepId)).toEqual(["s1", "s2"])
      expect(run.forecast.perStep.map((s: any) => s.stepId)).toEqual(["s1", "s2"])
      expect(run.forecast.expected.llmCalls).toBeGreaterThan(run.usage.llmCalls)
      expect(run.events.some((e: any) => e.type === "StepStarted")).toBe(false)
      expect(run.events.filter((e: any) => e.type === "ForecastMade")).toHaveLength(1)
    } finally {
      await server.stop()
    }
  }, 60_000)

  it(
    "approvePlan: AWAITING_INPUT with the plan and forecast; a refused edit keeps it open; EDIT removing a step runs without it",
    async () => {
      const server = await startServer({ script: convergingScript() })
      try {
        const id = (await gql(server.url, START, { input: { ...task, approvePlan: true } })).body.data.runTask.id
        const waiting = await awaiting(server.url, id)
        const request = waiting.pendingPlanApproval
        expect(request.plan.steps.map((s: any) => s.stepId)).toEqual(["s1", "s2"])
        expect(request.forecast.perStep).toHaveLength(2)
        expect(waiting.events.some((e: any) => e.type === "StepStarted")).toBe(false)
        const answer = (vars: Record<string, unknown>) =>
          gql(server.url, RESPOND, { runId: id, requestId: request.requestId, ...vars }).then((r) => r.body)

        const bad = await answer({
          decision: "EDIT",
          input: [{ actionType: "MODIFY", targetStepId: "s9", newStep: { description: "Explain 42" } }]
        })
        expect(bad.errors?.[0]?.extensions?.code).toBe("ApprovalInputError")
        expect(bad.errors?.[0]?.message).toMatch(/s9/)
        expect((await gql(server.url, RUN, { id })).body.data.run.pendingPlanApproval.requestId).toBe(request.requestId)

        const edited = await answer({ decision: "EDIT", input: [{ actionType: "REMOVE", targetStepId: "s2" }] })
        expect(edited.errors).toBeUndefined()
        const done = await finished(server.url, id)
        expect(done.pendingPlanApproval).toBeNull()
        expect(done.events.filter((e: any) => e.type === "StepStarted").map((e: any) => e.stepId)).toEqual(["s1"])
        expect(done.forecast.perStep).toHaveLength(2)
        expect(done.forecastError.withinWorstCase).toBe(true)
        expect((await answer({ decision: "APPROVE" })).errors?.[0]?.extensions?.code).toBe("RunNotWaitingError")
      } finally {
        await server.stop()
      }
    },
    60_000
  )

  it("REJECT ends the run CANCELLED with the reason", async () => {
    const server = await startServer({ script: convergingScript() })
    try {
      const id = (await gql(server.url, START, { input: { ...task, approvePlan: true } })).body.data.runTask.id
      const { requestId } = (await awaiting(server.url, id)).pendingPlanApproval
      const rejected = await gql(server.url, RESPOND, { runId: id, requestId, decision: "REJECT", reason: "too dear" })
      expect(rejected.body.errors).toBeUndefined()
      const done = await finished(server.url, id)
      expect(done.status).toBe("CANCELLED")
      expect(done.result.error).toMatch(/too dear/)
      expect(done.events.some((e: any) => e.type === "StepStarted")).toBe(false)
    } finally {
      await server.stop()
    }
  }, 60_000)

  it(
    "an interactive run at its call cap asks for more (pendingBudgetExtensions); APPROVE with caps lets it converge",
    async () => {
      const server = await startServer({ script: convergingScript() })
      try {
        const input = { ...task, interactive: true, budget: { maxLlmCalls: 4 } }
        const id = (await gql(server.url, START, { input })).body.data.runTask.id
        const query = `query($id: ID!) {
        run(id: $id) {
          status usage { llmCalls }
          pendingBudgetExtensions { requestId dimension limit used needs proposed forecast { expected { llmCalls } } }
        }
      }`
        const waiting = await untilStatus(server.url, id, "AWAITING_INPUT", { query })
        const [request] = waiting.pendingBudgetExtensions
        expect(request).toMatchObject({ dimension: "llmCalls", limit: 4, used: 4, proposed: { maxLlmCalls: 8 } })
        expect(waiting.usage.llmCalls).toBe(4)
        const answer = (caps: unknown) =>
          gql(server.url, RESPOND, { runId: id, requestId: request.requestId, decision: "APPROVE", input: caps })
            .then((r) => r.body)
        expect((await answer({ maxLlmCalls: 2 })).errors?.[0]?.extensions?.code).toBe("ApprovalInputError")
        expect((await answer({ maxLlmCalls: 30 })).errors).toBeUndefined()
        const done = await finished(server.url, id)
        expect(done.status).toBe("CONVERGED")
        expect(done.usage.llmCalls).toBeGreaterThan(4)
      } finally {
        await server.stop()
      }
    },
    60_000
  )

  it(
    `AEON_APPROVE_PLAN: a run waiting for its plan's approval survives kill -9 with the same request (${backend})`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "aeon-plan-approval-"))
      const env = await scriptedServerEnv(
        join(dir, "data"),
        seedScriptFile(join(dir, "script.json"), { convergence_assessment_user: [verdict(true)] }),
        { AEON_APPROVE_PLAN: "true" }
      )
      const first = startProcess(env)
      const url1 = await first.url
      const id = (await gql(url1, `mutation { runTask(input: { task: "Seed the memory", mode: FULL }) { id } }`)).body
        .data.runTask.id as string
      const before = (await awaiting(url1, id)).pendingPlanApproval
      // killed once the request is stored: a subscriber is told an event once it is stored, and the list reads the store
      await untilEvent(url1, id, "PlanApprovalRequested")
      const listed = await gql(url1, `{ runs(status: AWAITING_INPUT) { edges { node { id } } } }`)
      expect(listed.body.data.runs.edges.map((e: any) => e.node.id)).toContain(id)
      first.child.kill("SIGKILL")
      await exited(first.child)

      const second = startProcess(env)
      const url2 = await second.url
      const after = await awaiting(url2, id)
      expect(after.pendingPlanApproval).toEqual(before) // the same request, plan and forecast: not asked again
      const answered = await gql(url2, RESPOND, { runId: id, requestId: before.requestId, decision: "APPROVE" })
      expect(answered.body.errors).toBeUndefined()
      const done = await finished(url2, id)
      expect(done.status).toBe("CONVERGED")
      expect(done.events.filter((e: any) => e.type === "ForecastMade")).toHaveLength(1)
      expect(done.events.filter((e: any) => e.type === "PlanApprovalRequested")).toHaveLength(1)
      expect(done.events.some((e: any) => e.type === "RunResumed")).toBe(true)
      second.child.kill("SIGINT")
      expect(await exited(second.child)).toBe(0)
    },
    180_000
  )
})

describe("quotas through the API (#35)", () => {
  it(
    "quota(userId) shows used and left; a run past the user's runs per day is QuotaExceededError, nothing started",
    async () => {
      process.env.AEON_QUOTAS = "ursula:runs=1/day,tokens=500000/month"
      const server = await startServer({ script: convergingScript() }).finally(() => delete process.env.AEON_QUOTAS)
      try {
        const input = { ...task, userId: "ursula" }
        const first = await gql(server.url, START, { input })
        expect(first.body.errors).toBeUndefined()
        await finished(server.url, first.body.data.runTask.id)
        const second = await gql(server.url, START, { input })
        expect(second.body.errors?.[0]?.extensions?.code).toBe("QuotaExceededError")
        expect(second.body.errors?.[0]?.message).toMatch(/ursula has 0 runs of 1 runs per day left \(resets /)
        const QUOTA = `query($u: ID) { quota(userId: $u) { userId metric period limit used left resetsAt } }`
        const shown = (await gql(server.url, QUOTA, { u: "ursula" })).body.data.quota
        expect(shown).toEqual([
          { userId: "ursula", metric: "runs", period: "day", limit: 1, used: 1, left: 0, resetsAt: expect.any(String) },
          {
            userId: "ursula",
            metric: "tokens",
            period: "month",
            limit: 500000,
            used: expect.any(Number),
            left: expect.any(Number),
            resetsAt: expect.any(String)
          }
        ])
        expect(shown[1].used).toBeGreaterThan(0) // the first run's calls were counted
        expect(shown[1].used + shown[1].left).toBe(500000)
        const runs = (await gql(server.url, `{ runs(userId: "ursula") { edges { node { id } } } }`)).body.data.runs
        expect(runs.edges).toHaveLength(1)
      } finally {
        await server.stop()
      }
    },
    60_000
  )
})
