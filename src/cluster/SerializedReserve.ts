import type { SqlConnection } from "@effect/sql"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer, Stream } from "effect"

/**
 * One query at a time on the connection, until PostgreSQL has ended it. A caller that gives a query up (the cluster's
 * storage times its lock queries out after 2 s) returns at once, but the query goes on to its end holding the
 * connection: interrupting it would only ask PostgreSQL to cancel it (on another connection, which a loaded pool may
 * not give for seconds) and free the connection before the query has left it. Not cancelled, a lock query still ends
 * soon: they are short.
 */
const oneAtATime = (lock: Effect.Semaphore) => <A, E>(query: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.zipRight(
      restore(lock.take(1)),
      Effect.flatMap(Effect.forkDaemon(Effect.ensuring(query, lock.release(1))), (running) =>
        restore(Fiber.join(running)))
    )
  )

/**
 * A reserved connection that takes its queries one at a time. @effect/cluster's SQL runner storage keeps one reserved
 * connection for its shard locks and releases shards each in a fiber of its own: their queries reached node-postgres'
 * client at once, which queues them with a deprecation warning ("Calling client.query() when the client is already
 * executing a query", on every runner after a failover; pg 9 removes that path). Queued here instead, in order.
 */
const serialized = (c: SqlConnection.Connection, lock: Effect.Semaphore): SqlConnection.Connection => ({
  execute: (sql, params, transformRows) => oneAtATime(lock)(c.execute(sql, params, transformRows)),
  executeRaw: (sql, params) => oneAtATime(lock)(c.executeRaw(sql, params)),
  executeValues: (sql, params) => oneAtATime(lock)(c.executeValues(sql, params)),
  executeUnprepared: (sql, params, transformRows) => oneAtATime(lock)(c.executeUnprepared(sql, params, transformRows)),
  executeStream: (sql, params, transformRows) =>
    Stream.unwrapScoped(
      Effect.as(
        lock.take(1).pipe(Effect.acquireRelease(() => lock.release(1))),
        c.executeStream(sql, params, transformRows)
      )
    )
})

/**
 * A reserved connection goes back to the pool only once the query on it has ended (at most `drainLimit` later): the
 * storage rebuilds its lock connection after a query timed out, and the pool would give the still busy client to the
 * next query.
 */
const drained = (lock: Effect.Semaphore) =>
  Effect.addFinalizer(() => lock.withPermits(1)(Effect.void).pipe(Effect.timeout(drainLimit), Effect.ignore))
const drainLimit = "30 seconds"

/** The client as it is (still callable: `sql\`…\``), its reserved connections serialized. */
export const serializedReserve = (sql: SqlClient.SqlClient): SqlClient.SqlClient => {
  const reserve = Effect.gen(function*() {
    const c = yield* sql.reserve
    const lock = yield* Effect.makeSemaphore(1)
    yield* drained(lock) // added after the reserve's release, so run before it
    return serialized(c, lock)
  })
  return new Proxy(sql, { get: (client, key) => key === "reserve" ? reserve : Reflect.get(client, key) })
}

/** What the cluster's storage reads as its SqlClient. */
export const layer = Layer.effect(SqlClient.SqlClient, Effect.map(SqlClient.SqlClient, serializedReserve))
