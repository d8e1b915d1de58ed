import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Effect, Layer, Option, Redacted, Schedule } from "effect"
import { migrate } from "./Migrations.js"
import * as RunStore from "./RunStore.js"
import * as SqliteStore from "./SqliteStore.js"

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

/** The store over a SQL client: migrations applied, retention window set. */
export const storeLayer = (retentionDays: number) =>
  Layer.effect(
    RunStore.RunStore,
    Effect.gen(function*() {
      // servers started together on a new database race to apply the same migration: the losers' transactions fail
      // (the winner's tables or ledger row exist), and on a retry they find it applied
      yield* migrate.pipe(Effect.retry({ times: 5, schedule: Schedule.spaced("300 millis") }))
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

/** RunStore and EventSink, and the SQL client under them (a cluster's storage shares it). */
export const layer = (options: { url?: Redacted.Redacted | undefined; dataDir: string; retentionDays?: number }) => {
  const store = storeLayer(options.retentionDays ?? 7)
  return Layer.merge(store, RunStore.sinkLayer.pipe(Layer.provide(store))).pipe(
    Layer.provideMerge(clientLayer(options))
  )
}
