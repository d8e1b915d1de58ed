import { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import { createClient } from "graphql-sse"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EventSink } from "../../src/kernel/RunEvents.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import * as Database from "../../src/store/Database.js"
import { RunStore, sinkOf } from "../../src/store/RunStore.js"
import { storeError } from "../../src/store/StoreValues.js"
import { backend, freshDatabase } from "../support/database.js"
import { convergingScript, reasoned } from "../support/scripts.js"
import { gql, startServer, type TestServer, waitFor } from "../support/server.js"

/**
 * A server whose store fails mid-run and comes back (#46): the appends fail with SQLite's SQLITE_FULL while `down`
 * (the database itself stays whole: what fails is the write, as on a full disk).
 */
let down = false
const diskFull = () =>
  storeError("appending")(
    new SqlError({ cause: Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }) })
  )
const failingDatabase = (db: ReturnType<typeof freshDatabase>) => {
  const base = Database.layer(db)
  const store = Layer.effect(
    RunStore,
    Effect.map(RunStore, (s) => ({
      ...s,
      append: (...args: Parameters<typeof s.append>) =>
        Effect.suspend(() => (down ? Effect.fail(diskFull()) : s.append(...args)))
    }))
  ).pipe(Layer.provide(base))
  const sink = Layer.effect(EventSink, Effect.map(RunStore, (s) => sinkOf(s))).pipe(Layer.provide(store))
  return Layer.merge(base, Layer.merge(store, sink))
}

let server: TestServer
beforeAll(async () => {
  const db = freshDatabase()
  await Effect.runPromise(db.setup)
  server = await startServer({
    db,
    database: failingDatabase(db),
    script: { ...convergingScript(), [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 300 }] }
  })
}, 60_000)
afterAll(() => server?.stop())

const HEALTH = `{ health { ok storeFailure runsWaitingForStore activeRuns } }`
const health = async () => (await gql(server.url, HEALTH)).body.data.health

describe(`the store fails mid-run on a server (${backend})`, () => {
  it(
    "health says why while the run waits; the run goes on when the store answers; a subscriber gets every event once, in order",
    async () => {
      expect(await health()).toMatchObject({ ok: true, storeFailure: null, runsWaitingForStore: 0 })
      const client = createClient({ url: server.url, headers: { "x-graphql-yoga-csrf": "1" } })
      const id = (await gql(
        server.url,
        `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`
      ))
        .body.data.runTask.id as string
      const seen: Array<{ seq: number; type: string; status?: string }> = []
      const following = (async () => {
        for await (
          const r of client.iterate<{ runEvents: { seq: number; type: string; status?: string } }>({
            query:
              `subscription($runId: ID!) { runEvents(runId: $runId, fromSeq: 0) { seq type ... on RunFinishedEvent { status } } }`,
            variables: { runId: id }
          })
        ) seen.push(r.data!.runEvents)
      })()
      await waitFor(async () => (seen.length >= 3 ? true : undefined))
      down = true
      const waiting = await waitFor(async () => {
        const h = await health()
        return h.ok ? undefined : h
      })
      expect(waiting.storeFailure).toContain("the disk holding the embedded database is full")
      expect(waiting.runsWaitingForStore).toBe(1)
      expect(waiting.activeRuns).toBe(1)
      // the run waits: nothing more reaches the subscriber while the store is away
      const during = seen.length
      await new Promise((r) => setTimeout(r, 1_000))
      expect(seen.length).toBe(during)
      down = false
      await following
      client.dispose()
      expect(seen.at(-1)).toMatchObject({ type: "RunFinished", status: "CONVERGED" })
      expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1))
      const stored = (await gql(server.url, `query($id: ID!) { run(id: $id) { status events { seq } } }`, { id })).body
        .data.run
      expect(stored.status).toBe("CONVERGED")
      expect(stored.events.map((e: { seq: number }) => e.seq)).toEqual(seen.map((e) => e.seq))
      expect(await health()).toMatchObject({ ok: true, storeFailure: null, runsWaitingForStore: 0 })
    },
    60_000
  )
})
