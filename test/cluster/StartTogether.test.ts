import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import { storageTables } from "../../src/cluster/Cluster.js"
import { type ClusterConfig, clusterConfig } from "../../src/cluster/ClusterConfig.js"
import { storeLayer } from "../../src/store/Database.js"

/**
 * Servers started together on a new PostgreSQL database: each makes the store's tables and the cluster's storage
 * tables as it starts. Unserialized, two `CREATE TABLE IF NOT EXISTS` of one table at once fail (a duplicate key in
 * pg_type), and a runner exits "could not start". Four servers (a pool each, of three connections) at once, on five
 * new databases; each builds its store and its cluster tables at once, in either order (a start that hangs fails).
 */
const base = process.env.AEON_TEST_DATABASE_URL
if (!base) console.log("StartTogether test skipped: it needs PostgreSQL (AEON_TEST_DATABASE_URL)")

const SERVERS = 4
const ROUNDS = 5

const onDatabase = (database: string) => {
  const url = new URL(base!)
  url.pathname = `/${database}`
  return PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 3 })
}
const admin = (statement: string) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    yield* sql.unsafe(statement)
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(base!) })))

/** One server's start-up schema work, on a pool of three connections: its store and its cluster tables at once. */
const start = (config: ClusterConfig, database: string, storeFirst: boolean) =>
  Effect.scoped(Layer.build(
    (storeFirst ?
      Layer.merge(storeLayer(7), storageTables(config)) :
      Layer.merge(storageTables(config), storeLayer(7))).pipe(Layer.provide(onDatabase(database)))
  )).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => "hung for 20 s" }))

describe.skipIf(!base)("servers started together on a new database", () => {
  it.live(
    "each makes the store's and the cluster's tables, and every one of them starts",
    () =>
      Effect.gen(function*() {
        const config = yield* clusterConfig
        const failures: Array<string> = []
        for (let round = 0; round < ROUNDS; round++) {
          const database = `aeon_start_${Date.now().toString(36)}_${process.pid}_${round}`
          yield* admin(`CREATE DATABASE ${database}`)
          // half of them begin with the store's tables, half with the cluster's
          const exits = yield* Effect.all(
            Array.from({ length: SERVERS }, (_, server) => Effect.exit(start(config, database, server % 2 === 0))),
            { concurrency: "unbounded" }
          )
          for (const exit of exits) if (Exit.isFailure(exit)) failures.push(`round ${round}: ${exit.cause}`)
          yield* admin(`DROP DATABASE ${database} WITH (FORCE)`)
        }
        expect(failures).toEqual([])
      }),
    120_000
  )

  it.live(
    "one server alone, its cluster's tables begun first, does not wait on itself for a connection",
    () =>
      Effect.gen(function*() {
        const config = yield* clusterConfig
        const database = `aeon_start_${Date.now().toString(36)}_${process.pid}_alone`
        yield* admin(`CREATE DATABASE ${database}`)
        const exit = yield* Effect.exit(start(config, database, false))
        yield* admin(`DROP DATABASE ${database} WITH (FORCE)`)
        expect(Exit.isFailure(exit) ? String(exit.cause) : "started").toBe("started")
      }),
    60_000
  )
})
