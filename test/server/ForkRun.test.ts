import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gql, startServer, type TestServer, waitFor } from "../support/server.js"

let server: TestServer
const alice = { authorization: "Bearer key-alice" }
const bob = { authorization: "Bearer key-bob" }
beforeAll(async () => {
  server = await startServer({ config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) } })
}, 60_000)
afterAll(() => server?.stop())

const finished = (id: string, headers: Record<string, string>) =>
  waitFor(async () => {
    const run = (await gql(
      server.url,
      `query($id: ID!) { run(id: $id) { status userId finalAnswer { answerText }
        usage { llmCalls costUsd replayed { llmCalls costUsd } } events { seq type payload } } }`,
      { id },
      headers
    )).body.data.run
    return ["CONVERGED", "NOT_CONVERGED", "FAILED", "CANCELLED"].includes(run.status) ? run : undefined
  })

const FORK = `mutation($runId: ID!, $atSeq: Int!, $changes: ForkChanges) {
  forkRun(runId: $runId, atSeq: $atSeq, changes: $changes) { id userId } }`

describe("forkRun over GraphQL (#34)", () => {
  it("forks a finished run at an event: the fork replays the recorded calls and ends as its source did", async () => {
    const started = await gql(
      server.url,
      `mutation { runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL }) { id } }`,
      {},
      alice
    )
    const sourceId = started.body.data.runTask.id as string
    const source = await finished(sourceId, alice)
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

  it("another user's run cannot be forked (RunNotFoundError); a bad fork point is a coded error", async () => {
    const started = await gql(
      server.url,
      `mutation { runTask(input: { task: "Compute 2 + 2", mode: FULL }) { id } }`,
      {},
      alice
    )
    const id = started.body.data.runTask.id as string
    const source = await finished(id, alice)
    const theirs = await gql(server.url, FORK, { runId: id, atSeq: 2 }, bob)
    expect(theirs.body.errors?.[0]?.extensions?.code).toBe("RunNotFoundError")
    const beyond = await gql(server.url, FORK, { runId: id, atSeq: source.events.length + 5 }, alice)
    expect(beyond.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining("atSeq must be an event of run"),
      extensions: { code: "InvalidRunInputError" }
    })
  })
})
