import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import pg from "pg"
import { serializedReserve } from "../../src/cluster/SerializedReserve.js"

/**
 * The cluster's storage keeps one reserved connection for its shard locks, asked by several fibers, each under a
 * timeout (2 s): under load one times out while PostgreSQL still runs it. The next must wait for the connection to be
 * free — node-postgres would queue it, with a deprecation warning once two wait (pg 9 refuses it).
 */
const base = process.env.AEON_TEST_DATABASE_URL
if (!base) console.log("SerializedReserve test skipped: it needs PostgreSQL (AEON_TEST_DATABASE_URL)")

/** The most queries one node-postgres client was given before it answered them, while `measured` runs. */
const mostAtOnce = <A, E, R>(measured: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const query = pg.Client.prototype.query
    const running = new Map<pg.Client, number>()
    let most = 0
    const counted = function(this: pg.Client, ...args: Array<unknown>) {
      const callback = args.at(-1)
      if (typeof callback !== "function") return Reflect.apply(query, this, args)
      running.set(this, (running.get(this) ?? 0) + 1)
      most = Math.max(most, running.get(this) ?? 0)
      return Reflect.apply(query, this, [...args.slice(0, -1), (...result: Array<unknown>) => {
        running.set(this, (running.get(this) ?? 1) - 1)
        return Reflect.apply(callback, undefined, result)
      }])
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => void (pg.Client.prototype.query = counted as typeof query)),
      () => Effect.sync(() => void (pg.Client.prototype.query = query))
    )
    yield* measured
    return most
  })

describe.skipIf(!base)("the cluster storage's reserved connection", () => {
  it.scopedLive(
    "a query given up by its caller holds the connection until PostgreSQL ends it",
    () =>
      Effect.gen(function*() {
        const sql = serializedReserve(yield* SqlClient.SqlClient)
        const connection = yield* sql.reserve
        const most = yield* mostAtOnce(Effect.gen(function*() {
          // its cancel (pg_cancel_backend, sent on another of the pool's connections) cannot go out: the pool's one
          // connection is this one; the client gives the cancel up after 5 s, while the query still runs
          const slow = yield* connection.execute("SELECT pg_sleep(5.5)", [], undefined).pipe(
            Effect.timeout("50 millis"),
            Effect.either
          )
          expect(slow._tag).toBe("Left") // given up by its caller, still running on the server
          expect(yield* connection.execute("SELECT 1 AS one", [], undefined)).toEqual([{ one: 1 }])
        }))
        expect(most).toBe(1) // the second waited for the first to end
      }).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(base ?? ""), maxConnections: 1 })),
        Effect.orDie
      ),
    30_000
  )

  it.scopedLive(
    "a connection whose query was given up goes back to the pool only once PostgreSQL has ended it",
    () =>
      Effect.gen(function*() {
        // the storage rebuilds its lock connection after a query timed out: the old one is released while the query
        // still runs on it, and the pool gives that busy client to the next query
        const sql = serializedReserve(yield* SqlClient.SqlClient)
        const most = yield* mostAtOnce(Effect.gen(function*() {
          yield* Effect.scoped(Effect.gen(function*() {
            const connection = yield* sql.reserve
            const slow = yield* connection.execute("SELECT pg_sleep(1.5)", [], undefined).pipe(
              Effect.timeout("50 millis"),
              Effect.either
            )
            expect(slow._tag).toBe("Left")
          }))
          expect(yield* sql`SELECT 1 AS one`).toEqual([{ one: 1 }])
        }))
        expect(most).toBe(1)
      }).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(base ?? ""), maxConnections: 1 })),
        Effect.orDie
      ),
    30_000
  )
})
