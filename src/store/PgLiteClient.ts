import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import { Duration, Effect, Layer, Stream } from "effect"
import * as DataDirLock from "./DataDirLock.js"

/**
 * An @effect/sql client over PGlite (PostgreSQL in WASM). One connection, so one permit: a plain
 * query holds it while it runs, a transaction holds it from BEGIN to COMMIT.
 */
export const make = (dataDir: string | undefined) =>
  Effect.gen(function*() {
    if (dataDir !== undefined) yield* DataDirLock.acquire(dataDir)
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const pg = new PGlite(dataDir)
          await pg.waitReady
          return pg
        },
        catch: (cause) => new SqlError({ cause, message: `cannot open the embedded database${dataDir ? ` at ${dataDir}` : ""}` })
      }).pipe(Effect.timeoutFail({ duration: Duration.seconds(60), onTimeout: () => new SqlError({ cause: undefined, message: "opening the embedded database timed out" }) })),
      (pg) => Effect.promise(() => pg.close()).pipe(Effect.timeoutOption(Duration.seconds(10)))
    )
    const permit = yield* Effect.makeSemaphore(1)
    const run = (sql: string, params: ReadonlyArray<unknown>, rowMode?: "array") =>
      Effect.tryPromise({
        try: () => db.query<any>(sql, params as Array<unknown>, rowMode ? { rowMode } : undefined),
        catch: (cause) => new SqlError({ cause, message: `statement failed: ${(cause as Error)?.message ?? cause}` })
      })
    const connection = (guarded: boolean): Connection => {
      const withPermit = <A>(e: Effect.Effect<A, SqlError>) => (guarded ? permit.withPermits(1)(e) : e)
      const execute: Connection["execute"] = (sql, params, transformRows) =>
        withPermit(run(sql, params)).pipe(Effect.map((r) => (transformRows ? transformRows(r.rows) : r.rows)))
      return {
        execute,
        executeRaw: (sql, params) => withPermit(run(sql, params)),
        executeValues: (sql, params) => withPermit(run(sql, params, "array")).pipe(Effect.map((r) => r.rows)),
        executeUnprepared: execute,
        executeStream: (sql, params, transformRows) => Stream.fromIterableEffect(execute(sql, params, transformRows))
      }
    }
    const free = connection(false)
    return yield* SqlClient.make({
      acquirer: Effect.succeed(connection(true)),
      // the permit is held for the transaction's scope; its statements run unguarded on the same connection
      transactionAcquirer: Effect.zipRight(Effect.acquireRelease(permit.take(1), () => permit.release(1)), Effect.succeed(free)),
      compiler: makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", "pglite"]]
    })
  })

export const layer = (dataDir: string | undefined) =>
  Layer.scoped(SqlClient.SqlClient, make(dataDir)).pipe(Layer.provide(Reactivity.layer))
