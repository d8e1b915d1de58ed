import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { memoizeWeak } from "../support/Memoize.js"
import * as AgentStore from "./AgentStore.js"
import * as Attachments from "./Attachments.js"
import * as Memories from "./Memories.js"
import { migrate } from "./Migrations.js"
import * as Notifications from "./Notifications.js"
import * as Outbox from "./Outbox.js"
import * as QuotaLedger from "./QuotaLedger.js"
import * as RunLease from "./RunLease.js"
import * as RunStore from "./RunStore.js"
import * as Schedules from "./Schedules.js"
import * as SqliteStore from "./SqliteStore.js"
import * as StoreOutages from "./StoreOutages.js"
import * as Threads from "./Threads.js"

export const databaseConfig = Config.all({
  // an empty AEON_DATABASE_URL counts as unset (the embedded database)
  url: Config.option(
    Config.redacted("AEON_DATABASE_URL").pipe(
      Config.withDescription("PostgreSQL URL; the embedded SQLite database is used when absent")
    )
  ).pipe(
    Config.map(Option.filter((url) => Redacted.value(url).trim() !== ""))
  ),
  dataDir: Config.string("AEON_DATA_DIR").pipe(
    Config.withDescription("Where the embedded SQLite database keeps its file, aeon.db (`memory` for none)"),
    Config.withDefault(".aeon/data")
  ),
  retentionDays: Config.integer("AEON_RETENTION_DAYS").pipe(
    Config.withDescription("Reasoning traces older than this many days are deleted"),
    Config.withDefault(7)
  )
})

/** The SQL client: PostgreSQL when a URL is given, else SQLite in dataDir (`memory`: in memory). */
export const clientLayer = (
  options: { url?: Redacted.Redacted | undefined; dataDir: string }
): Layer.Layer<SqlClient.SqlClient, unknown> => options.url ? pgLayer(options.url) : SqliteStore.layer(options.dataDir)

/** PostgreSQL's client, loaded only when a URL is configured. */
const pgLayer = (url: Redacted.Redacted) =>
  Layer.unwrapEffect(
    Effect.map(Effect.promise(() => import("@effect/sql-pg/PgClient")), (Pg) => Pg.layer({ url, maxConnections: 10 }))
  )

/**
 * Servers started together on a new database would race to create the same tables (the store's migrations, a cluster's
 * storage), and two `CREATE TABLE IF NOT EXISTS` of one new table at once fail in PostgreSQL (a duplicate key in
 * pg_type; @effect/cluster's storage even makes that a defect). On PostgreSQL, `work` on the schema therefore runs
 * under one session advisory lock, taken on a connection reserved for it: one server at a time, the later ones finding
 * the tables made. Within one pool the turns are taken first (a semaphore): a fiber waiting for the lock must not
 * hold a connection of the pool the holder's work needs (with each waiting on the other, start-up hung).
 * Elsewhere (SQLite: one process per data directory, which it locks) `work` runs as it is.
 */
export const oneServerAtATime = <A, E, R>(work: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      pg: () =>
        turnOf(sql).withPermits(1)(Effect.scoped(Effect.gen(function*() {
          const connection = yield* sql.reserve
          yield* Effect.acquireRelease(
            connection.executeRaw("SELECT pg_advisory_lock($1)", [SCHEMA_LOCK]),
            () => Effect.ignore(connection.executeRaw("SELECT pg_advisory_unlock($1)", [SCHEMA_LOCK]))
          )
          return yield* work
        }))),
      orElse: () => work
    }))

/** Each pool's turn at the schema lock. */
const turnOf = memoizeWeak((_: SqlClient.SqlClient) => Effect.unsafeMakeSemaphore(1))

/** The advisory lock's key: "AEON" in ASCII. */
const SCHEMA_LOCK = 0x41454f4e

/** The store over a SQL client: migrations applied, retention window set. */
export const storeLayer = (retentionDays: number) =>
  Layer.effect(
    RunStore.RunStore,
    Effect.gen(function*() {
      yield* oneServerAtATime(migrate)
      const store = yield* RunStore.make
      yield* store.setRetentionDays(retentionDays)
      return store
    })
  )

/** RunStore and EventSink (events persisted before they are published) from the environment. */
export const layerConfig = Layer.unwrapEffect(
  Effect.gen(function*() {
    const c = yield* databaseConfig
    return layer({ url: Option.getOrUndefined(c.url), dataDir: c.dataDir, retentionDays: c.retentionDays })
  })
)

/**
 * RunStore and EventSink, the users' quotas (AEON_QUOTAS) and memories across runs kept beside them, the runs waiting for a failing store
 * (StoreOutages), and the SQL client under them (a cluster's storage shares it).
 */
export const layer = (options: { url?: Redacted.Redacted | undefined; dataDir: string; retentionDays?: number }) => {
  const store = storeLayer(options.retentionDays ?? 7)
  return Layer.mergeAll(
    store,
    RunStore.sinkLayer.pipe(Layer.provide(store)),
    QuotaLedger.layerConfig,
    Memories.layerConfig.pipe(Layer.provide(store)),
    // after the store: its migrations made the tables
    Threads.layer.pipe(Layer.provide(store)),
    AgentStore.layer.pipe(Layer.provide(store)),
    Attachments.layer.pipe(Layer.provide(store)),
    RunLease.layer,
    Outbox.layer,
    Schedules.layer,
    Notifications.layer(),
    StoreOutages.layer
  ).pipe(
    Layer.provideMerge(clientLayer(options))
  )
}
