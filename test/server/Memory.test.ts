import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backend, freshDatabase } from "../support/database.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

const keys = { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) }
const alice = { authorization: "Bearer key-alice" }
const bob = { authorization: "Bearer key-bob" }
const db = freshDatabase()
let server: TestServer
beforeAll(async () => {
  server = await startServer({ config: keys, db })
}, 60_000)
afterAll(() => server?.stop())

const RUN = `query($id: ID!) { run(id: $id) { status userId usage { llmCalls } events { type
  ... on PlanReusedEvent { fromRun match }
  ... on MemoryRecalledEvent { memories { kind runId text coverage rank } } } } }`
const MEMORIES = `query($q: String) { memories(query: $q, first: 10) {
  edges { cursor node { id kind text task runId stepId createdAt coverage } } pageInfo { hasNextPage endCursor } } }`

const runOn = async (url: string, task: string, headers: Record<string, string>) => {
  const started = await gql(
    url,
    `mutation($task: String!) { runTask(input: { task: $task }) { id } }`,
    { task },
    headers
  )
  expect(started.body.errors).toBeUndefined()
  const id = started.body.data.runTask.id as string
  return { id, run: await awaitRun(url, id, { query: RUN, headers }) }
}

describe("memory across runs over GraphQL (#44)", () => {
  it("a converged run is the caller's memory: listed and searched with its source, reused, and forgotten", async () => {
    const first = await runOn(server.url, "Compute 17 + 25", alice)
    expect(first.run.status).toBe("CONVERGED")
    const mine = await gql(server.url, MEMORIES, { q: "compute 17 25" }, alice)
    expect(mine.body.errors).toBeUndefined()
    const answer = mine.body.data.memories.edges.map((e: any) => e.node).find((m: any) => m.kind === "ANSWER")
    expect(answer).toMatchObject({ runId: first.id, task: "Compute 17 + 25" })
    expect(answer.text).toContain("42")
    expect(answer.coverage).toBe(1)
    // bob sees none of alice's, and cannot forget them
    expect((await gql(server.url, MEMORIES, {}, bob)).body.data.memories.edges).toEqual([])
    const bobForgets = await gql(server.url, `mutation($id: ID!) { forgetMemory(id: $id) }`, { id: answer.id }, bob)
    expect(bobForgets.body.data.forgetMemory).toBe(false)
    // the same task again: the first run's plan, no model call
    const again = await runOn(server.url, "Compute 17 + 25", alice)
    expect(again.run.events.find((e: any) => e.type === "PlanReused")).toMatchObject({
      fromRun: first.id,
      match: "equal"
    })
    expect(again.run.usage.llmCalls).toBe(0)
    // the repeat established nothing new: remembered once
    const answers = (await gql(server.url, MEMORIES, { q: "compute 17 25" }, alice)).body.data.memories.edges
      .filter((e: any) => e.node.kind === "ANSWER")
    expect(answers.map((e: any) => e.node.id)).toEqual([answer.id])
    // forgotten, it is neither listed nor reused
    const forgot = await gql(server.url, `mutation($id: ID!) { forgetMemory(id: $id) }`, { id: answer.id }, alice)
    expect(forgot.body.data.forgetMemory).toBe(true)
    await runOn(server.url, "Compute 6 * 7", alice)
    const all = await gql(server.url, `mutation { forgetMemories }`, {}, alice)
    expect(all.body.data.forgetMemories).toBeGreaterThan(0)
    expect((await gql(server.url, MEMORIES, {}, alice)).body.data.memories.edges).toEqual([])
    const fresh = await runOn(server.url, "Compute 17 + 25", alice)
    expect(fresh.run.events.some((e: any) => e.type === "PlanReused")).toBe(false)
    expect(fresh.run.usage.llmCalls).toBeGreaterThan(0)
  })

  it("bad paging arguments are refused, coded", async () => {
    const r = await gql(server.url, `{ memories(first: 0) { edges { cursor } } }`, {}, alice)
    expect(r.body.errors?.[0]?.extensions?.code).toBe("InvalidRunInputError")
    expect(r.body.errors?.[0]?.message).toContain("first must be between 1 and 100")
    const c = await gql(server.url, `{ memories(after: "x'; drop") { edges { cursor } } }`, {}, alice)
    expect(c.body.errors?.[0]?.extensions?.code).toBe("InvalidRunInputError")
  })

  it.runIf(backend === "postgres")("a memory written through one server is recalled through another", async () => {
    const other = await startServer({ config: keys, db })
    try {
      const first = await runOn(server.url, "Compute 6 * 7", bob)
      expect(first.run.status).toBe("CONVERGED")
      const again = await runOn(other.url, "compute 6 * 7", bob)
      expect(again.run.events.find((e: any) => e.type === "PlanReused")).toMatchObject({ fromRun: first.id })
    } finally {
      await other.stop()
    }
  })
})
