import { createClient } from "graphql-sse"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backend } from "../support/database.js"
import { startServerOnFailingStore } from "../support/failingStore.js"
import { gql, type TestServer } from "../support/server.js"
import { Arrivals } from "../support/until.js"

/**
 * A server whose store fails mid-run and comes back (#46): the appends fail with SQLite's SQLITE_FULL while `down`
 * (the database itself stays whole: what fails is the write, as on a full disk).
 */
let down = false
/** The appends the failing store refused, as they come: each a try of the run's writer. */
const refusals = new Arrivals<number>()

let server: TestServer
beforeAll(async () => {
  server = await startServerOnFailingStore(() => down, () => refusals.push(Date.now()))
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
      const events = new Arrivals<{ seq: number; type: string; status?: string }>()
      const seen = events.all
      const following = (async () => {
        for await (
          const r of client.iterate<{ runEvents: { seq: number; type: string; status?: string } }>({
            query:
              `subscription($runId: ID!) { runEvents(runId: $runId, fromSeq: 0) { seq type ... on RunFinishedEvent { status } } }`,
            variables: { runId: id }
          })
        ) events.push(r.data!.runEvents)
      })()
      // told of the store's waits as they happen: the state now, then each change, until the run ends
      const told = new Arrivals<{ waiting: boolean; cause: string | null }>()
      const waits = told.all
      const toldWaits = (async () => {
        for await (
          const r of client.iterate<{ runStoreWaits: { waiting: boolean; cause: string | null } }>({
            query: `subscription($runId: ID!) { runStoreWaits(runId: $runId) { waiting cause } }`,
            variables: { runId: id }
          })
        ) told.push(r.data!.runStoreWaits)
      })()
      const atLeast = (n: number) => (all: ReadonlyArray<unknown>) => (all.length >= n ? true : undefined)
      await events.until(atLeast(3))
      await told.until(atLeast(1))
      down = true
      // told the run waits for its store: health says so too
      await told.until(atLeast(2))
      const waiting = await health()
      expect(waiting.ok).toBe(false)
      expect(waiting.storeFailure).toContain("the disk holding the embedded database is full")
      expect(waiting.runsWaitingForStore).toBe(1)
      expect(waiting.activeRuns).toBe(1)
      const run = (await gql(server.url, `query($id: ID!) { run(id: $id) { storeWait { waiting cause since } } }`, {
        id
      })).body.data.run
      expect(run.storeWait).toMatchObject({ waiting: true, cause: waiting.storeFailure })
      expect(Date.parse(run.storeWait.since)).toBeGreaterThan(0)
      // the run waits: while its writer tries again and again, nothing more reaches the subscriber
      const during = seen.length
      await refusals.until(atLeast(refusals.all.length + 3))
      expect(seen.length).toBe(during)
      down = false
      await following
      await toldWaits
      client.dispose()
      expect(waits).toEqual([
        { waiting: false, cause: null },
        { waiting: true, cause: waiting.storeFailure },
        { waiting: false, cause: null }
      ])
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
