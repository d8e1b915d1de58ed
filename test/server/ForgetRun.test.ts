import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * What cannot be erased (#69 item 14): a /v1 conversation without a thread keeps its compaction summaries under a key
 * of its first message, and nothing erased them. forgetRun erases one run of its owner and everything that holds
 * what it was given: its events and recorded prompts, its memories, the summaries it made, the files no other run
 * carries. A run under way is refused until cancelled.
 */
let stub: OpenAiStub
let app: TestServer
let slow = false
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => ({
    content: JSON.stringify(byPrompt[promptOfRequest(body) ?? ""] ?? {}),
    ...(slow ? { delayMs: 3_000 } : {})
  }))
  app = await startServer({ model: stubModel(stub) })
})
afterAll(async () => {
  await app?.stop()
  await stub?.close()
})

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f", "hex").toString("base64")
/** How many rows of `table` the run has (for attachments, how many there are: they are kept by hash). */
const count = (table: "run_events" | "memories" | "thread_summaries" | "attachments", id: string) =>
  app.runtime.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = table === "attachments"
      ? yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM attachments`
      : yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql(table)} WHERE run_id = ${id}`
    return Number(rows[0]!.n)
  }))

describe("forgetRun: a person's words erased (#69.14)", () => {
  it("erases the run, its events, memories, the summaries it made and the files no other run carries", async () => {
    const started = await gql(
      app.url,
      `mutation($a: [AttachmentInput!]) {
      runTask(input: { task: "Compute 6 * 7 for Ines Duarte", attachments: $a }) { id } }`,
      {
        a: [{ mediaType: "image/png", data: PNG, name: "note.png" }]
      }
    )
    const id = started.body.data.runTask.id as string
    expect((await awaitRun(app.url, id)).status).toBe("CONVERGED")
    // a client history's summary, as /v1 compaction keeps it (under its first message), made by this run
    await app.runtime.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO thread_summaries (owner, thread_key, covers, prefix_hash, text, run_id, created_at)
        VALUES ('', 'history:abc', 2, 'h', 'Ines Duarte asked about 6 * 7', ${id}, ${new Date().toISOString()})`
    }))
    expect(await count("run_events", id)).toBeGreaterThan(0)
    expect(await count("attachments", id)).toBe(1)
    expect(await count("memories", id)).toBeGreaterThan(0)
    expect(await count("thread_summaries", id)).toBe(1)

    const forgotten = await gql(app.url, `mutation($id: ID!) { forgetRun(id: $id) }`, { id })
    expect(forgotten.body).toEqual({ data: { forgetRun: true } })
    expect((await gql(app.url, `query($id: ID!) { run(id: $id) { id } }`, { id })).body.data.run).toBeNull()
    expect(await count("run_events", id)).toBe(0)
    expect(await count("memories", id)).toBe(0)
    expect(await count("thread_summaries", id)).toBe(0)
    expect(await count("attachments", id)).toBe(0)
    // nothing left: said so
    expect((await gql(app.url, `mutation($id: ID!) { forgetRun(id: $id) }`, { id })).body.data.forgetRun).toBe(false)
  })

  it("a run under way is refused, coded, and kept; cancelled, it can be erased", async () => {
    slow = true
    const id = (await gql(app.url, `mutation { runTask(input: { task: "Compute 6 * 7", mode: FULL }) { id } }`)).body
      .data.runTask.id as string
    const refused = await gql(app.url, `mutation($id: ID!) { forgetRun(id: $id) }`, { id })
    expect(refused.body.errors![0]!.extensions?.code).toBe("RunUnfinishedError")
    expect(refused.body.errors![0]!.message).toMatch(/has not ended .*: cancel it first/)
    await gql(app.url, `mutation($id: ID!) { cancelRun(id: $id) { status } }`, { id })
    slow = false
    expect((await gql(app.url, `mutation($id: ID!) { forgetRun(id: $id) }`, { id })).body.data.forgetRun).toBe(true)
  })
})

describe("aeon forget RUN (#69.14)", () => {
  it("erases a run of the CLI's store; an unknown run is refused", async () => {
    const { cliIn } = await import("../support/cli.js")
    const { aeon } = cliIn("aeon-forget-")
    const done = JSON.parse((await aeon("run", "What is 6 * 7 plus 3?", "--json")).stdout)
    const forgotten = await aeon("forget", done.runId)
    expect(forgotten.code, forgotten.stderr).toBe(0)
    expect(forgotten.stdout).toContain(`run ${done.runId} forgotten`)
    expect((await aeon("inspect", done.runId)).stderr).toContain(`run ${done.runId} does not exist`)
    const again = await aeon("forget", done.runId)
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(`aeon: run ${done.runId} does not exist\n`)
  }, 60_000)
})
