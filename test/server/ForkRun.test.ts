import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

let server: TestServer
const alice = { authorization: "Bearer key-alice" }
const bob = { authorization: "Bearer key-bob" }
beforeAll(async () => {
  server = await startServer({ config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) } })
}, 60_000)
afterAll(() => server?.stop())

const finished = (id: string, headers: Record<string, string>) =>
  awaitRun(server.url, id, {
    query: `query($id: ID!) { run(id: $id) { status userId finalAnswer { answerText }
        usage { llmCalls costUsd replayed { llmCalls costUsd } } events { seq type payload } } }`,
    headers
  })

/** A run of alice's, started over GraphQL and waited for to its end. */
const aliceRun = async (task: string) => {
  const started = await gql(
    server.url,
    `mutation($task: String!) { runTask(input: { task: $task, mode: FULL }) { id } }`,
    {
      task
    },
    alice
  )
  const id = started.body.data.runTask.id as string
  return { id, run: await finished(id, alice) }
}

const FORK = `mutation($runId: ID!, $atSeq: Int!, $changes: ForkChanges) {
  forkRun(runId: $runId, atSeq: $atSeq, changes: $changes) { id userId } }`

describe("forkRun over GraphQL (#34)", () => {
  it("forks a finished run at an event: the fork replays the recorded calls and ends as its source did", async () => {
    const { id: sourceId, run: source } = await aliceRun("Compute (17 + 25) * 3 and explain the result")
    const plan = source.events.find((e: any) => e.type === "PlanCreated").seq
    const forked = await gql(server.url, FORK, {
      runId: sourceId,
      atSeq: plan,
      changes: { budget: { maxLlmCalls: 50 } }
    }, alice)
    expect(forked.body.errors).toBeUndefined()
    expect(forked.body.data.forkRun.userId).toBe("alice")
    const fork = await finished(forked.body.data.forkRun.id, alice)
    expect(fork.events[0]).toMatchObject({
      type: "RunForked",
      payload: { from: sourceId, atSeq: plan, changed: ["budget"] }
    })
    expect(fork.status).toBe(source.status)
    expect(fork.finalAnswer).toEqual(source.finalAnswer)
    expect(fork.usage.llmCalls).toBe(source.usage.llmCalls)
    expect(fork.usage.replayed.llmCalls).toBeGreaterThan(0)
    // the source is untouched
    expect((await finished(sourceId, alice)).events).toEqual(source.events)
  })

  it("forks at a pass's end with a plan edit: the removed step never runs; a refused edit is a coded error", async () => {
    const { id: sourceId, run: source } = await aliceRun("Compute (17 + 25) * 3 and explain the result")
    const steps = source.events.find((e: any) => e.type === "PlanCreated").payload.plan.steps
    expect(steps.length).toBeGreaterThan(1)
    const last = steps.at(-1).stepId
    const planEnd = source.events.find((e: any) => e.type === "PassFinished").seq
    const forked = await gql(server.url, FORK, {
      runId: sourceId,
      atSeq: planEnd,
      changes: { planEdits: [{ actionType: "REMOVE", targetStepId: last, justification: "not needed" }] }
    }, alice)
    expect(forked.body.errors).toBeUndefined()
    const fork = await finished(forked.body.data.forkRun.id, alice)
    expect(fork.events[0].payload.changed).toEqual(["planEdits"])
    const copied = fork.events[0].payload.copied
    expect(fork.events[copied + 1]).toMatchObject({ type: "RefinementApplied" })
    const ran = fork.events.filter((e: any) => e.type === "StepStarted").map((e: any) => e.payload.stepId)
    expect(ran.length).toBeGreaterThan(0)
    expect(ran).not.toContain(last)
    const unknownModel = await gql(server.url, FORK, {
      runId: sourceId,
      atSeq: planEnd,
      changes: { model: "openai:gpt-9" }
    }, alice)
    expect(unknownModel.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining("is not configured here: one of offline"),
      extensions: { code: "InvalidRunInputError" }
    })
    const refused = await gql(server.url, FORK, {
      runId: sourceId,
      atSeq: planEnd,
      changes: { planEdits: [{ actionType: "MODIFY", targetStepId: "nope", newStep: { description: "x" } }] }
    }, alice)
    expect(refused.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining("nope"),
      extensions: { code: "InvalidRunInputError" }
    })
  })

  it("another user's run cannot be forked (RunNotFoundError); a bad fork point is a coded error", async () => {
    const { id: id, run: source } = await aliceRun("Compute 2 + 2")
    const theirs = await gql(server.url, FORK, { runId: id, atSeq: 2 }, bob)
    expect(theirs.body.errors?.[0]?.extensions?.code).toBe("RunNotFoundError")
    const beyond = await gql(server.url, FORK, { runId: id, atSeq: source.events.length + 5 }, alice)
    expect(beyond.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining("atSeq must be an event of run"),
      extensions: { code: "InvalidRunInputError" }
    })
  })
})
