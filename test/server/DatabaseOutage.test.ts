import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { createClient } from "graphql-sse"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import * as Database from "../../src/store/Database.js"
import * as StoreOutages from "../../src/store/StoreOutages.js"
import { convergingScript, reasoned } from "../support/scripts.js"
import { awaitRun, gql, startServer, type TestServer, untilEvent, untilHealth } from "../support/server.js"

/**
 * PostgreSQL away mid-run (#46): a database of the test's own refuses connections (ALLOW_CONNECTIONS false, its
 * backends terminated) while a run's write waits, then takes them again. Needs PostgreSQL
 * (AEON_TEST_DATABASE_URL); never the shared database itself.
 */
const base = process.env.AEON_TEST_DATABASE_URL
const name = `aeon_outage_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`

// one connection pool for the test's own statements, made once: a refusal takes effect at once
const adminRuntime = base
  ? ManagedRuntime.make(PgClient.layer({ url: Redacted.make(base) }).pipe(Layer.orDie))
  : undefined
const admin = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  adminRuntime!.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
const refuse = () =>
  admin((sql) =>
    Effect.zipRight(
      sql.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`),
      sql.unsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`)
    )
  )
const allow = () => admin((sql) => sql.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`))

/** Until the run is executing a step (its reasoning call takes 1.5 s): the database goes away mid-run. */
const stepStarted = (url: string, id: string) => untilEvent(url, id, "StepStarted")

/** A run started, then the database refusing connections while one of its steps is under way: the run's id. */
const refusedMidRun = async (url: string) => {
  const id =
    (await gql(url, `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`))
      .body.data.runTask.id as string
  await stepStarted(url, id)
  await refuse()
  return id
}

let server: TestServer | undefined
/** A second server, its bound 1 s: a run's attempt ends while the database is away. */
let bounded: TestServer | undefined
const urlOf = () => {
  const url = new URL(base!)
  url.pathname = `/${name}`
  return url.toString()
}

describe.skipIf(!base)("PostgreSQL away mid-run, then back", () => {
  beforeAll(async () => {
    await admin((sql) => sql.unsafe(`CREATE DATABASE ${name}`))
    server = await startServer({
      database: Database.layer({ url: Redacted.make(urlOf()), dataDir: "memory" }),
      script: { ...convergingScript(), [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 1_500 }] }
    })
    bounded = await startServer({
      database: Layer.merge(
        Database.layer({ url: Redacted.make(urlOf()), dataDir: "memory" }),
        Layer.effect(StoreOutages.StoreOutages, StoreOutages.make(1_000))
      ),
      script: { ...convergingScript(), [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 1_500 }] }
    })
  }, 60_000)
  // a test that failed half-way leaves the database taking connections again for the next
  afterEach(async () => {
    await allow().catch(() => {})
  })
  afterAll(async () => {
    await server?.stop()
    await bounded?.stop()
    await allow().catch(() => {})
    await admin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => {})
    await adminRuntime?.dispose()
  })

  it(
    "the run waits while connections are refused (health says so) and converges once they are taken again, without a restart",
    async () => {
      const url = server!.url
      const id = await refusedMidRun(url)
      const waiting = await untilHealth(url, "ok storeFailure runsWaitingForStore", (h) => !h.ok)
      expect(waiting.storeFailure).toMatch(/PostgreSQL/)
      expect(waiting.runsWaitingForStore).toBe(1)
      // a write failed and waits: the database takes connections again (how the writer's retries go on the clock —
      // backing off to every 2 s through a 12 s outage, the bound — is test/journal/StoreRetries', on TestClock)
      await allow()
      await untilHealth(url, "ok", (now) => now.ok === true)
      const finished = await awaitRun(url, id, { query: `query($id: ID!) { run(id: $id) { status events { seq } } }` })
      expect(finished.status).toBe("CONVERGED")
      expect(finished.events.map((e: { seq: number }) => e.seq)).toEqual(
        finished.events.map((_: unknown, i: number) => i + 1)
      )
    },
    90_000
  )

  it(
    "past AEON_STORE_OUTAGE_MS the attempt ends; the server takes the run up again once the database is back",
    async () => {
      const url = bounded!.url
      const id = await refusedMidRun(url)
      // a subscriber told of the run's store waits: followed through the attempt that ended and the one after it
      const client = createClient({ url, headers: { "x-graphql-yoga-csrf": "1" } })
      // and one following its events from the start: every event once, in order, through both attempts
      const seen: Array<number> = []
      const following = (async () => {
        for await (
          const r of client.iterate<{ runEvents: { seq: number } }>({
            query: `subscription($runId: ID!) { runEvents(runId: $runId, fromSeq: 0) { seq } }`,
            variables: { runId: id }
          })
        ) seen.push(r.data!.runEvents.seq)
      })()
      const waits: Array<boolean> = []
      const toldWaits = (async () => {
        for await (
          const r of client.iterate<{ runStoreWaits: { waiting: boolean } }>({
            query: `subscription($runId: ID!) { runStoreWaits(runId: $runId) { waiting } }`,
            variables: { runId: id }
          })
        ) waits.push(r.data!.runStoreWaits.waiting)
      })()
      // the attempt ends after about 1 s (no run here any more); the run still counts as waiting for its store
      const h = await untilHealth(url, "ok storeFailure runsWaitingForStore activeRuns", (now) => now.activeRuns === 0)
      expect(h).toMatchObject({ ok: false, runsWaitingForStore: 1, activeRuns: 0 })
      expect(h.storeFailure).toMatch(/PostgreSQL/)
      await allow()
      await untilHealth(url, "ok", (now) => now.ok === true)
      const finished = await awaitRun(url, id, {
        query: `query($id: ID!) { run(id: $id) { status events { seq type } } }`
      })
      expect(finished.status).toBe("CONVERGED")
      const events = finished.events as Array<{ seq: number; type: string }>
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      // taken up again from what was stored: a RunResumed, one RunFinished
      expect(events.filter((e) => e.type === "RunResumed")).toHaveLength(1)
      expect(events.filter((e) => e.type === "RunFinished")).toHaveLength(1)
      // (it ends with the run: the last state it gave is the run going on)
      await toldWaits
      await following
      client.dispose()
      expect(seen).toEqual(events.map((e) => e.seq))
      expect(waits).toContain(true)
      expect(waits.at(-1)).toBe(false)
      expect((await gql(url, `{ health { ok runsWaitingForStore } }`)).body.data.health).toEqual({
        ok: true,
        runsWaitingForStore: 0
      })
    },
    90_000
  )
})
