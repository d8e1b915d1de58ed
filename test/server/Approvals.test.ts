import { Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import { convergingScript, planOut, reasoned, refiningForever } from "../support/scripts.js"
import { awaitRun, gql, startServer, untilEvent, untilStatus } from "../support/server.js"

const script = () => ({
  ...convergingScript(),
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    { id: "s1", d: "Store the seed 7 in memory under seed", tool: "memory.write", input: { key: "seed", value: 7 } },
    { id: "s2", d: "Read the seed back", tool: "memory.read", input: { key: "seed" }, deps: ["s1"] }
  ])],
  // slow enough that the run is still going right after an answer
  [PromptId.REASONING_STEP_USER]: [{ ...reasoned("the seed is stored"), delayMs: 300 }]
})

const RUN = `query($id: ID!) {
  run(id: $id) {
    status
    pendingApprovals { requestId stepId tool input description }
    events { type ... on ToolInvokedEvent { tool output } ... on ApprovalAnsweredEvent { decision input } }
  }
}`
const RESPOND = `mutation($runId: ID!, $requestId: ID!, $decision: ApprovalDecision!, $input: JSON, $reason: String) {
  respondToApproval(runId: $runId, requestId: $requestId, decision: $decision, input: $input, reason: $reason) {
    id status
  }
}`

describe("approvals through the API", () => {
  it(
    "AWAITING_INPUT with one request; only the owner answers; a bad edit and a second answer are coded errors",
    async () => {
      const server = await startServer({
        script: script(),
        config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) }
      })
      const alice = { authorization: "Bearer key-alice" }
      const bob = { authorization: "Bearer key-bob" }
      try {
        const started = await gql(server.url, `mutation($input: RunTaskInput!) { runTask(input: $input) { id } }`, {
          input: { task: "Seed the memory and read it back", mode: "FULL", approvalTools: ["memory.write"] }
        }, alice)
        const id = started.body.data.runTask.id as string
        const waiting = await untilStatus(server.url, id, "AWAITING_INPUT", { query: RUN, headers: alice })
        expect(waiting.pendingApprovals).toEqual([{
          requestId: expect.any(String),
          stepId: "s1",
          tool: "memory.write",
          input: { key: "seed", value: 7 },
          description: "Store the seed 7 in memory under seed"
        }])
        const requestId = waiting.pendingApprovals[0].requestId
        // listed by its status, not among the RUNNING ones: the list reads the store, where the request is kept before
        // its event is published (the run's own status, read from its memory, may say so a moment sooner)
        await untilEvent(server.url, id, "ApprovalRequested", { headers: alice })
        const listed = (await gql(
          server.url,
          `{ runs(status: AWAITING_INPUT) { edges { node { id status } } } }`,
          {},
          alice
        )).body.data.runs.edges
        expect(listed).toEqual([{ node: { id, status: "AWAITING_INPUT" } }])
        const running = await gql(server.url, `{ runs(status: RUNNING) { edges { node { id } } } }`, {}, alice)
        expect(running.body.data.runs.edges).toEqual([])
        const answer = (vars: Record<string, unknown>, who = alice) =>
          gql(server.url, RESPOND, { runId: id, requestId, ...vars }, who).then((r) => r.body)

        expect((await answer({ decision: "APPROVE" }, bob)).errors?.[0]?.extensions?.code).toBe("RunNotFoundError")
        const bad = await answer({ decision: "EDIT", input: { key: 7 } })
        expect(bad.errors?.[0]?.extensions?.code).toBe("ApprovalInputError")
        expect(bad.errors?.[0]?.message).toContain("memory.write")
        const unknown = await gql(server.url, RESPOND, { runId: id, requestId: "nope", decision: "APPROVE" }, alice)
        expect(unknown.body.errors?.[0]?.extensions?.code).toBe("ApprovalNotFoundError")

        const edited = await answer({ decision: "EDIT", input: { key: "seed", value: 8 } })
        expect(edited.errors).toBeUndefined()
        expect(edited.data.respondToApproval.status).toBe("RUNNING")
        expect((await answer({ decision: "REJECT", reason: "too late" })).errors?.[0]?.extensions?.code)
          .toBe("ApprovalAlreadyAnsweredError")

        const done = await untilStatus(server.url, id, "CONVERGED", { query: RUN, headers: alice })
        expect(done.pendingApprovals).toEqual([])
        const stillListed = await gql(
          server.url,
          `{ runs(status: AWAITING_INPUT) { edges { node { id } } } }`,
          {},
          alice
        )
        expect(stillListed.body.data.runs.edges).toEqual([])
        const read = done.events.find((e: any) => e.type === "ToolInvoked" && e.tool === "memory.read")
        expect(read.output).toEqual({ key: "seed", found: true, value: 8 })
        expect(done.events.filter((e: any) => e.type === "ApprovalAnswered")).toEqual([{
          type: "ApprovalAnswered",
          decision: "EDIT",
          input: { key: "seed", value: 8 }
        }])
      } finally {
        await server.stop()
      }
    },
    60_000
  )

  it(
    "an interactive run asks for guidance (AWAITING_INPUT, pendingGuidance); provideGuidance lets it go on",
    async () => {
      const server = await startServer({
        script: { ...convergingScript(), ...refiningForever("s2") }
      })
      try {
        const started = await gql(server.url, `mutation($input: RunTaskInput!) { runTask(input: $input) { id } }`, {
          input: { task: "Compute 6 * 7 and explain it", mode: "FULL", interactive: true, budget: { ttl: 6 } }
        })
        const id = started.body.data.runTask.id as string
        const query = `query($id: ID!) { run(id: $id) { status pendingGuidance { requestId stepId reason } } }`
        const waiting = await untilStatus(server.url, id, "AWAITING_INPUT", { query })
        expect(waiting.pendingGuidance).toEqual([{
          requestId: expect.any(String),
          stepId: "s2",
          reason: expect.stringContaining("refinement limit")
        }])
        const GUIDE =
          `mutation($id: ID!, $r: ID!, $t: String!) { provideGuidance(runId: $id, requestId: $r, text: $t) { id } }`
        const requestId = waiting.pendingGuidance[0].requestId
        expect((await gql(server.url, GUIDE, { id, r: requestId, t: " " })).body.errors?.[0]?.extensions?.code)
          .toBe("ApprovalInputError")
        expect((await gql(server.url, GUIDE, { id, r: requestId, t: "keep it short" })).body.errors).toBeUndefined()
        const done = await awaitRun(server.url, id, { query })
        expect(done.status).toBe("NOT_CONVERGED")
        expect(done.pendingGuidance).toEqual([])
        expect((await gql(server.url, GUIDE, { id, r: requestId, t: "again" })).body.errors?.[0]?.extensions?.code)
          .toBe("RunNotWaitingError")
      } finally {
        await server.stop()
      }
    },
    60_000
  )
})
