import { HttpAgent } from "@ag-ui/client"
import type { BaseEvent } from "@ag-ui/core"
import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gql, startServer, type TestServer } from "../support/server.js"

// AG-UI's own client (HttpAgent) against POST /ag-ui; the offline model answers (a labeled stand-in).
let server: TestServer
beforeAll(async () => {
  server = await startServer({ config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) } })
})
afterAll(() => server?.stop())

const agentOf = (key = "key-alice") =>
  new HttpAgent({ url: server.url.replace(/\/graphql$/, "/ag-ui"), headers: { authorization: `Bearer ${key}` } })

/** Runs the agent once, collecting every event it received. */
const runOnce = async (agent: HttpAgent, params: Parameters<HttpAgent["runAgent"]>[0] = {}) => {
  const events: Array<BaseEvent> = []
  const result = await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) })
  return { events, result }
}

describe("POST /ag-ui", () => {
  it("runs the last user message as a task: RUN_STARTED … steps, state, the answer's text … RUN_FINISHED", async () => {
    const agent = agentOf()
    agent.addMessage({ id: "m1", role: "user", content: "Compute 17 + 25" })
    const { events, result } = await runOnce(agent, { forwardedProps: { aeon: { mode: "FULL" } } })
    const types = events.map((e) => e.type as string)
    expect(types[0]).toBe("RUN_STARTED")
    expect(types[1]).toBe("STATE_SNAPSHOT")
    expect(types.at(-1)).toBe("RUN_FINISHED")
    expect(types).toContain("STEP_STARTED")
    expect(types).toContain("STATE_DELTA")
    const starts = events.filter((e) => e.type === "STEP_STARTED").map((e: any) => e.stepName)
    const ends = events.filter((e) => e.type === "STEP_FINISHED").map((e: any) => e.stepName)
    expect(new Set(ends)).toEqual(new Set(starts))
    expect(starts).toEqual(expect.arrayContaining(["pass 0: PLAN", "pass 1: EXECUTE", "pass 1: EVALUATE", "step s1"]))
    const text = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e: any) => e.delta).join("")
    expect(text).toContain("42")
    const answer = agent.messages.find((m) => m.role === "assistant" && typeof m.content === "string")
    expect(answer?.content).toContain("42")
    expect(agent.state).toMatchObject({ status: "CONVERGED", mode: "FULL", plan: { goal: expect.any(String) } })
    expect((agent.state as any).usage.llmCalls).toBeGreaterThan(0)
    expect(result.result).toMatchObject({ status: "CONVERGED" })
    expect(types.indexOf("TEXT_MESSAGE_START")).toBeLessThan(types.indexOf("TEXT_MESSAGE_END"))
  })

  it("a tool call is TOOL_CALL_START / ARGS / END / RESULT with the call's input and output", async () => {
    const agent = agentOf()
    agent.addMessage({ id: "m1", role: "user", content: "Compute (17 + 25) * 3 and explain the result" })
    const { events } = await runOnce(agent, { forwardedProps: { aeon: { mode: "FULL" } } })
    const start = events.find((e) => e.type === "TOOL_CALL_START") as any
    expect(start?.toolCallName).toBe("calculator")
    const args = events.find((e) => e.type === "TOOL_CALL_ARGS" && (e as any).toolCallId === start.toolCallId) as any
    expect(JSON.parse(args.delta)).toHaveProperty("expression")
    const result = events.find((e) =>
      e.type === "TOOL_CALL_RESULT" && (e as any).toolCallId === start.toolCallId
    ) as any
    expect(result.content).toMatch(/126|42/)
  })

  it("a plan waiting for approval is an interrupt; the next request approves it and the run goes on to its answer", async () => {
    const agent = agentOf()
    agent.addMessage({ id: "m1", role: "user", content: "Compute 17 + 25" })
    const first = await runOnce(agent, { forwardedProps: { aeon: { mode: "FULL", approvePlan: true } } })
    const finished = first.events.at(-1) as any
    expect(finished.type).toBe("RUN_FINISHED")
    expect(finished.outcome.type).toBe("interrupt")
    const [interrupt] = finished.outcome.interrupts
    expect(interrupt.reason).toBe("plan_approval")
    expect(interrupt.message).toMatch(/plan/)
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual([interrupt.id])
    const aeonRun = first.events.find((e) => e.type === "STATE_SNAPSHOT") as any
    const waiting = await gql(
      server.url,
      `query($id: ID!) { run(id: $id) { status } }`,
      { id: aeonRun.snapshot.runId },
      {
        authorization: "Bearer key-alice"
      }
    )
    expect(waiting.body.data.run.status).toBe("AWAITING_INPUT")

    const second = await runOnce(agent, {
      resume: [{ interruptId: interrupt.id, status: "resolved", payload: { action: "approve" } }]
    })
    const types = second.events.map((e) => e.type as string)
    expect(types[0]).toBe("RUN_STARTED")
    expect(types.at(-1)).toBe("RUN_FINISHED")
    expect((second.events.at(-1) as any).outcome?.type ?? "success").toBe("success")
    const text = second.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e: any) => e.delta).join("")
    expect(text).toContain("42")
    // the second response goes on after the request: the plan's steps are not started twice
    const stepStarts = [...first.events, ...second.events].filter((e) => e.type === "STEP_STARTED").map((e: any) =>
      e.stepName
    ).filter((n: string) => n.startsWith("step "))
    expect(new Set(stepStarts).size).toBe(stepStarts.length)
  })

  it("a runId of an existing run follows it from its log; another user's is not found", async () => {
    const agent = agentOf()
    agent.addMessage({ id: "m1", role: "user", content: "Compute 17 + 25" })
    const first = await runOnce(agent, { runId: "agui-follow-1" })
    const again = await runOnce(agentOf(), { runId: "agui-follow-1" })
    const text = (events: Array<BaseEvent>) =>
      events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e: any) => e.delta).join("")
    expect(text(again.events)).toBe(text(first.events))
    const runs = await gql(server.url, `{ runs(first: 100) { edges { node { id } } } }`, {}, {
      authorization: "Bearer key-alice"
    })
    expect(runs.body.data.runs.edges.filter((e: any) => e.node.id.endsWith("agui-follow-1")).length).toBe(1)
    const bobs = agentOf("key-bob")
    bobs.addMessage({ id: "m1", role: "user", content: "Compute 1 + 1" })
    const bob = await runOnce(bobs, { runId: "agui-follow-1" })
    expect((bob.events.at(-1) as any).type).toBe("RUN_FINISHED") // a run of bob's own: alice's id is scoped to her
    expect(text(bob.events)).toContain("2")
  })

  it("refuses a wrong key (401) and a body that is not a RunAgentInput (400)", async () => {
    const url = server.url.replace(/\/graphql$/, "/ag-ui")
    const wrong = await fetch(url, { method: "POST", headers: { authorization: "Bearer nope" }, body: "{}" })
    expect(wrong.status).toBe(401)
    const bad = await fetch(url, {
      method: "POST",
      headers: { authorization: "Bearer key-alice", "content-type": "application/json" },
      body: JSON.stringify({ threadId: 3 })
    })
    expect(bad.status).toBe(400)
    expect((await bad.json()).error.code).toBe("BAD_REQUEST")
  })
})
