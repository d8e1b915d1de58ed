import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import * as SqliteClient from "../../src/store/SqliteClient.js"

const withTable = <A, E>(body: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE n (i INTEGER PRIMARY KEY)`
    yield* sql`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) INSERT INTO n SELECT x FROM c`
    return yield* body(sql)
  }).pipe(Effect.provide(SqliteClient.layer(":memory:")), Effect.orDie)

describe("the embedded database's client", () => {
  it.effect("streams rows as they are pulled: taking five reads five, and the connection is free again after", () =>
    withTable((sql) =>
      Effect.gen(function*() {
        const first = yield* sql<{ i: number }>`SELECT i FROM n ORDER BY i`.stream.pipe(
          Stream.take(5),
          Stream.runCollect
        )
        expect([...first].map((r) => r.i)).toEqual([1, 2, 3, 4, 5])
        expect(yield* sql`SELECT count(*) AS c FROM n`).toEqual([{ c: 20000 }])
        // the whole table, counted as it streams
        expect(yield* sql`SELECT i FROM n`.stream.pipe(Stream.runCount)).toBe(20000)
      })
    ))

  it.live("a write sent while a stream is open waits for it instead of failing on a busy connection", () =>
    withTable((sql) =>
      Effect.gen(function*() {
        // more rows than one pull reads (a chunk): the iterator stays open while the first chunk is slowly consumed
        const reading = yield* Deferred.make<void>()
        const slow = yield* sql<{ i: number }>`SELECT i FROM n ORDER BY i`.stream.pipe(
          Stream.tap((r) =>
            r.i === 1
              ? Deferred.succeed(reading, undefined).pipe(Effect.zipRight(Effect.sleep("50 millis")))
              : Effect.void
          ),
          Stream.runCount,
          Effect.fork
        )
        yield* Deferred.await(reading) // the stream is open: its first row read, the rest still to come
        yield* sql`INSERT INTO n VALUES (20001)`
        expect(yield* Fiber.join(slow)).toBe(20000) // the write waited for the stream's end
        expect(yield* sql`SELECT count(*) AS c FROM n`).toEqual([{ c: 20001 }])
      })
    ))

  it.effect("inside a transaction, a stream reads on the transaction's connection", () =>
    withTable((sql) =>
      Effect.gen(function*() {
        const rows = yield* Effect.gen(function*() {
          yield* sql`DELETE FROM n WHERE i > 2`
          return yield* sql<{ i: number }>`SELECT i FROM n`.stream.pipe(Stream.runCollect)
        }).pipe(sql.withTransaction)
        expect([...rows].map((r) => r.i)).toEqual([1, 2])
      })
    ))
})
