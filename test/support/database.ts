import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option, Redacted } from "effect"
import * as Database from "../../src/store/Database.js"
import * as RunLease from "../../src/store/RunLease.js"
import * as RunStore from "../../src/store/RunStore.js"

/** Which back end the store suites run on: SQLite in memory, or PostgreSQL when AEON_TEST_DATABASE_URL is set. */
export const backend = process.env.AEON_TEST_DATABASE_URL ? "postgres" : "sqlite"

/** A fresh, isolated database: SQLite in memory, or a new schema on the PostgreSQL server. */
export const freshDatabase = (): { url?: Redacted.Redacted; dataDir: string; setup: Effect.Effect<void> } => {
  const base = process.env.AEON_TEST_DATABASE_URL
  if (!base) return { dataDir: "memory", setup: Effect.void }
  const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const url = new URL(base)
  url.searchParams.set("options", `-c search_path=${schema}`)
  const setup = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(base) })), Effect.orDie)
  return { url: Redacted.make(url.toString()), dataDir: "memory", setup }
}

/** RunStore + EventSink on a fresh database, plus the raw SqlClient (tests back-date rows with it). */
export const storeLayer = (db = freshDatabase()) =>
  Layer.unwrapEffect(db.setup.pipe(Effect.map(() => {
    const client = Database.clientLayer(db).pipe(Layer.orDie)
    const store = Database.storeLayer(7).pipe(Layer.provide(client), Layer.orDie)
    return Layer.mergeAll(
      store,
      RunStore.sinkLayer.pipe(Layer.provide(store)),
      RunLease.layer.pipe(Layer.provide(client), Layer.orDie),
      client
    )
  })))

/** The run taken up by a cluster's runner `runner` (the lease's claim, whoever held it): its fence. */
export const claimedBy = (runId: string, runner: string) =>
  Effect.flatMap(
    RunLease.RunLease,
    (lease) => Effect.map(lease.claim(runId, { key: runner, runner, force: true }), Option.getOrThrow)
  )
