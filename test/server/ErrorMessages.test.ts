import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backend, freshDatabase, storeLayer } from "../support/database.js"
import { convergingScript } from "../support/scripts.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

const START = `mutation($input: RunTaskInput!) { runTask(input: $input) { id status userId } }`
const alice = { authorization: "Bearer key-alice" }
const bob = { authorization: "Bearer key-bob" }
const finished = (server: TestServer, id: string, headers: Record<string, string>) =>
  awaitRun(server.url, id, { headers })

/** What must never reach a client: database text, stacks, schema dumps, Effect's failure wrappers. */
const INTERNAL =
  /SQL|sqlite|postgres|duplicate key|constraint|runs_pkey|relation "|no such table|INSERT|SELECT|\bat \S+ \(|\.ts:\d+|FiberFailure|Expected \{|readonly |\[Symbol/i

describe(`client-chosen run ids (${backend})`, () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({
      script: convergingScript(),
      config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) }
    })
  })
  afterAll(() => server?.stop())

  it("are per user: a reused id is RunIdTakenError without SQL, and another user's id reveals nothing (#15.3)", async () => {
    const input = { task: "Compute 6 * 7 and explain it", mode: "FULL", runId: "report-1" }
    const first = await gql(server.url, START, { input }, alice)
    expect(first.body.data.runTask).toMatchObject({ id: "alice:report-1", userId: "alice" })
    await finished(server, "report-1", alice)

    const again = await gql(server.url, START, { input }, alice)
    expect(again.body.errors?.[0]).toMatchObject({
      message: "runId alice:report-1 is already taken: choose another, or leave runId out for a generated one",
      extensions: { code: "RunIdTakenError" }
    })
    expect(again.body.errors?.[0]?.message).not.toMatch(INTERNAL)

    // bob's answer for alice's id is the answer for a free id: a run of his own
    const theirs = await gql(server.url, START, { input }, bob)
    expect(theirs.body.errors).toBeUndefined()
    expect(theirs.body.data.runTask).toMatchObject({ id: "bob:report-1", userId: "bob" })
    await finished(server, "report-1", bob)
    const generated = (await gql(server.url, START, { input: { task: "Compute 6 * 7", mode: "FULL" } }, alice)).body
      .data.runTask.id as string
    const guessed = await gql(server.url, START, { input: { task: "x", mode: "FULL", runId: generated } }, bob)
    expect(guessed.body.errors).toBeUndefined()
    expect(guessed.body.data.runTask.id).toBe(`bob:${generated}`)

    // each finds their own by the id they chose, or by the full id
    const read = (id: string, headers: Record<string, string>) =>
      gql(server.url, `query($id: ID!) { run(id: $id) { id userId } }`, { id }, headers).then((r) => r.body.data.run)
    expect(await read("report-1", alice)).toEqual({ id: "alice:report-1", userId: "alice" })
    expect(await read("report-1", bob)).toEqual({ id: "bob:report-1", userId: "bob" })
    expect(await read("alice:report-1", alice)).toEqual({ id: "alice:report-1", userId: "alice" })
    expect(await read("alice:report-1", bob)).toBeNull()
    const cancel = await gql(server.url, `mutation { cancelRun(id: "report-1") { id } }`, {}, bob)
    expect(cancel.body.data.cancelRun.id).toBe("bob:report-1")
  })

  it("without users, a reused id is RunIdTakenError; nothing about the first run changes", async () => {
    const open = await startServer({ script: convergingScript() })
    try {
      const input = { task: "Compute 6 * 7 and explain it", mode: "FULL", runId: "shared-1" }
      expect((await gql(open.url, START, { input })).body.data.runTask.id).toBe("shared-1")
      await finished(open, "shared-1", {})
      const again = await gql(open.url, START, { input: { ...input, task: "something else" } })
      expect(again.body.errors?.[0]?.extensions?.code).toBe("RunIdTakenError")
      const run = (await gql(open.url, `{ run(id: "shared-1") { task status } }`)).body.data.run
      expect(run).toEqual({ task: "Compute 6 * 7 and explain it", status: "CONVERGED" })
    } finally {
      await open.stop()
    }
  })
})

describe(`no internal error text reaches a client (${backend})`, () => {
  it("every error path's message is free of SQL, stacks and schema dumps", async () => {
    const db = freshDatabase()
    const server = await startServer({ db, database: storeLayer(db), script: convergingScript() })
    const messages: Array<[string, string | undefined, string | undefined]> = []
    const probe = async (name: string, query: string, variables: Record<string, unknown> = {}) => {
      const r = await gql(server.url, query, variables)
      for (const e of r.body.errors ?? []) messages.push([name, e.message, e.extensions?.code])
      return r
    }
    try {
      await probe("empty task", START, { input: { task: " " } })
      await probe("bad budget", START, { input: { task: "x", budget: { ttl: -1, deadlineMs: 1.5 } } })
      await probe("bad criteria", START, { input: { task: "x", criteria: { answerMatches: "(?<=a)b" } } })
      await probe("bad schema", START, { input: { task: "x", criteria: { answerSchema: { type: 12 } } } })
      await probe("unknown tool", START, { input: { task: "x", tools: ["nope"] } })
      await probe("bad run id", START, { input: { task: "x", runId: "a b;DROP" } })
      await probe("unknown field", START, { input: { task: "x", bogus: 1 } })
      await probe("int overflow", START, { input: { task: "x", parallelism: 2 ** 40 } })
      await probe("unknown run", `{ run(id: "nope") { id } }`)
      await probe("cancel unknown", `mutation { cancelRun(id: "nope") { id } }`)
      await probe("bad cursor", `{ runs(after: "not-a-cursor") { edges { cursor } } }`)
      await probe("first out of range", `{ runs(first: 1000) { edges { cursor } } }`)
      await probe(
        "unknown approval",
        `mutation { respondToApproval(runId: "nope", requestId: "r", decision: APPROVE) { id } }`
      )
      await probe("syntax", `{ runs(`)
      await probe("unknown field in query", `{ runz { id } }`)
      const started = await probe("start", START, { input: { task: "Compute 6 * 7", mode: "FULL", runId: "dup" } })
      expect(started.body.data.runTask.id).toBe("dup")
      await probe("reused id", START, { input: { task: "x", runId: "dup" } })
      // the database itself failing: what the client gets names the operation, not the database's words
      await server.runtime.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`DROP TABLE agent_sessions`.pipe(Effect.ignore)
        yield* sql`ALTER TABLE runs RENAME TO runs_gone`
      }) as Effect.Effect<void, unknown, never>)
      const broken = await probe("store down", `{ runs { edges { node { id } } } }`)
      expect(broken.body.errors?.[0]?.extensions?.code).toBe("StoreError")
      await probe("store down, start", START, { input: { task: "x" } })
    } finally {
      await server.stop().catch(() => undefined)
    }
    expect(messages.length).toBeGreaterThanOrEqual(17)
    for (const [name, message, code] of messages) {
      expect({ name, message }).not.toEqual({ name, message: expect.stringMatching(INTERNAL) })
      expect({ name, code }).toEqual({ name, code: expect.any(String) })
    }
  })
})
