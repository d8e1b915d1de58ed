import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schedule } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as RunStore from "../../src/store/RunStore.js"
import { backend, freshDatabase, storeLayer } from "../support/database.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

let server: TestServer

beforeAll(async () => {
  const db = freshDatabase()
  server = await startServer({ db, database: storeLayer(db) })
})
afterAll(() => server?.stop())

const finished = (id: string) => awaitRun(server.url, id)

describe(`a damaged stored run (${backend})`, () => {
  it("is listed as that one node with a coded error; the rest of the page is served, also for runs added later", async () => {
    const start = () =>
      gql(
        server.url,
        `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL, userId: "dmg" }) { id } }`
      )
        .then((r) => r.body.data.runTask.id as string)
    const healthy = await start()
    const damaged = await start()
    await finished(healthy)
    await finished(damaged)
    // an event this version cannot read, as an older or broken writer could have left it (run_events is append-only)
    await server.runtime.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // the run's last event stored (its status shows as soon as the run has it, a moment before the store does)
      const stored = sql<{ seq: number }>`SELECT seq FROM run_events WHERE run_id = ${damaged} AND type = 'RunFinished'`
      const rows = yield* stored.pipe(
        Effect.filterOrFail((rows) => rows.length > 0, () => "RunFinished not stored yet"),
        Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("10 seconds")))
      )
      const seq = rows[0]!.seq
      const payload = JSON.stringify({
        _tag: "RunFinished",
        runId: damaged,
        seq: Number(seq) + 1,
        status: "NOT_CONVERGED",
        ttlExpiration: { expirationPoint: "phase_boundary" }
      })
      const at = new Date().toISOString()
      const values = sql.onDialectOrElse({
        pg: () => sql`(${damaged}, ${Number(seq) + 1}, 'RunFinished', ${payload}::jsonb, ${at}::timestamptz)`,
        orElse: () => sql`(${damaged}, ${Number(seq) + 1}, 'RunFinished', ${payload}, ${at})`
      })
      yield* sql`INSERT INTO run_events (run_id, seq, type, payload, at) VALUES ${values}`
    }) as Effect.Effect<void, unknown, never>)
    const later = await start()
    await finished(later)

    const list = await gql(
      server.url,
      `{ runs(userId: "dmg") { edges { node { id status task finalAnswer { answerText } } } } }`
    )
    const nodes = list.body.data.runs.edges.map((e: any) => e.node)
    expect(nodes.map((n: any) => n.id).sort()).toEqual([healthy, damaged, later].sort())
    const byId = Object.fromEntries(nodes.map((n: any) => [n.id, n]))
    expect(byId[healthy].finalAnswer.answerText).toContain("42")
    expect(byId[later].finalAnswer.answerText).toContain("42")
    expect(byId[damaged]).toMatchObject({
      status: "CONVERGED",
      task: "Compute 6 * 7 and explain it",
      finalAnswer: null
    })
    expect(list.body.errors).toHaveLength(1)
    const [error] = list.body.errors!
    expect(error!.extensions?.code).toBe("RunRecordDamagedError")
    expect(error!.message).toContain(damaged)
    expect(error!.message).not.toMatch(/Expected|ParseError|└|latestPassResult/) // no decoder dump reaches the client
    expect((error as any).path).toEqual([
      "runs",
      "edges",
      nodes.findIndex((n: any) => n.id === damaged),
      "node",
      "finalAnswer"
    ])

    const one = await gql(server.url, `query($id: ID!) { run(id: $id) { id result { converged } } }`, { id: damaged })
    expect(one.body.data.run).toEqual({ id: damaged, result: null })
    expect(one.body.errors?.[0]?.extensions?.code).toBe("RunRecordDamagedError")
  })
})

describe(`an unfinished run that cannot resume (${backend})`, () => {
  it("is logged and left as it is; the server starts and resumes the others", async () => {
    // a run left RUNNING by a process that died, whose input names a tool this server no longer has (an MCP server
    // taken out of the configuration since), beside one that can resume
    const db = backend === "sqlite"
      ? { dataDir: mkdtempSync(join(tmpdir(), "aeon-gone-")), setup: Effect.void }
      : freshDatabase()
    const leftRunning = (id: string, input: Record<string, unknown>) =>
      Effect.flatMap(
        RunStore.RunStore,
        (store) => store.createRun({ id, task: String(input.task), mode: "FULL", input, status: "RUNNING" })
      )
    await Effect.runPromise(
      Effect.all([
        leftRunning("gone-tool", { task: "Read the notes", tools: ["notes.read"] }),
        leftRunning("resumable", { task: "Compute 6 * 7 and explain it" })
      ]).pipe(Effect.provide(storeLayer(db)), Effect.scoped)
    )
    const restarted = await startServer({ db })
    try {
      const resumed = await awaitRun(restarted.url, "resumable")
      expect(resumed.status).toBe("CONVERGED")
      const left = await gql(restarted.url, `{ run(id: "gone-tool") { status task } }`)
      // left as it was: no event written, so it reads as a run that has not begun
      expect(left.body.data.run).toEqual({ status: "QUEUED", task: "Read the notes" })
    } finally {
      await restarted.stop()
    }
  })
})
