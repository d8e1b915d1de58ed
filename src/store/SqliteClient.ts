import * as Reactivity from "@effect/experimental/Reactivity"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import type Sqlite from "better-sqlite3"
import { Chunk, Context, Effect, Layer, Scope, Stream } from "effect"
import { processWide } from "../support/Fields.js"
import { optionalPackage } from "../support/OptionalPackage.js"
import { messageOf } from "../support/Thrown.js"
import { type RawStatement, SqliteWriter } from "./SqliteWriter.js"
import { storeCauseInWords } from "./StoreCause.js"

/**
 * The better-sqlite3 objects kept reachable until the process exits, on Node 24 and later only. better-sqlite3 12's
 * Database and Statement are node::ObjectWrap objects; on Node 24.19+ their destructor aborts the process when the
 * garbage collector finalizes one outside a JavaScript context (`Assertion failed: (env) != nullptr` in
 * RemoveEnvironmentCleanupHook; WiseLibs/better-sqlite3#1515, fixed in 13.x, which needs Node 22, while the
 * machines here run Node 20). The suite crashed that way on Node 24 with @effect/sql-sqlite-node, which prepares
 * BEGIN/COMMIT anew for every transaction and evicts cached statements. There, no such object may become garbage: a
 * database's statements are prepared once per SQL text and kept with it, closed or not. The set is bounded: the
 * store's statements are fixed texts, and its multi-row inserts come in four sizes per table (Statements'
 * CHUNK_SIZES). On Node 20 and 22, a closed database and its statements are released as usual.
 * The list hangs off globalThis: a module evaluated again in the same process (a test runner's isolation) must not
 * drop the objects an earlier evaluation made.
 */
const retainForever = Number(process.versions.node.split(".")[0]) >= 24
const retained: Array<unknown> = processWide(Symbol.for("aeon/sqlite/retained"), Array.isArray, () => [])

/** Keeps a better-sqlite3 object reachable for the process's life where its finalizer could abort it (above). */
export const retain = (...objects: Array<unknown>) => {
  if (retainForever) retained.push(...objects)
}

const failure = (message: string) => (cause: unknown) => {
  const words = storeCauseInWords(cause)
  return new SqlError({ cause, message: `${message}: ${words ?? messageOf(cause) ?? cause}` })
}

/**
 * better-sqlite3, loaded when the embedded store is first opened: an optional peer of the published package (a library
 * user on PostgreSQL, or with no store, installs no native addon).
 */
export const driver: Effect.Effect<typeof Sqlite, SqlError> = optionalPackage(
  "better-sqlite3",
  "The embedded store",
  () => import("better-sqlite3")
).pipe(
  Effect.map((m) => m.default),
  Effect.mapError((e) =>
    new SqlError({ cause: e, message: `${e.message} (or set AEON_DATABASE_URL to use PostgreSQL)` })
  )
)

const open = (filename: string) => Effect.flatMap(driver, (Driver) => openWith(Driver, filename))

const openWith = (Driver: typeof Sqlite, filename: string) =>
  Effect.try({
    try: () => {
      const db = new Driver(filename)
      // exec, not db.pragma: pragma() prepares a statement of its own and drops it at once (see `retained`)
      db.exec(`${filename === ":memory:" ? "" : "PRAGMA journal_mode = WAL; "}PRAGMA foreign_keys = ON`)
      return db
    },
    catch: failure(`cannot open the embedded database ${filename}`)
  })

/** A statement run with its parameters: rows (objects, or a write's info when `raw`), or rows as arrays of values. */
const runners = (prepared: (sql: string) => Sqlite.Statement) => {
  const run = (sql: string, params: ReadonlyArray<unknown>, raw: boolean) =>
    Effect.try({
      try: () => {
        const s = prepared(sql)
        if (s.reader) return s.all(...params) as ReadonlyArray<any>
        const info = s.run(...params)
        return raw ? info as unknown as ReadonlyArray<any> : []
      },
      catch: failure("statement failed")
    })
  const values = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.try({
      try: () => {
        const s = prepared(sql)
        if (!s.reader) return (s.run(...params), [])
        try {
          return s.raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
        } finally {
          s.raw(false)
        }
      },
      catch: failure("statement failed")
    })
  return { run, values }
}

/** A batch of statements straight through better-sqlite3 under the permit, in one transaction (one alone: itself). */
const writerOf =
  (db: Sqlite.Database, prepared: (sql: string) => Sqlite.Statement, permit: Effect.Semaphore) =>
  (statements: ReadonlyArray<RawStatement>) =>
    permit.withPermits(1)(Effect.try({
      try: () => {
        if (statements.length === 1) return void prepared(statements[0]![0]).run(...statements[0]![1])
        prepared("BEGIN").run()
        try {
          for (const [sql, params] of statements) prepared(sql).run(...params)
          prepared("COMMIT").run()
        } catch (e) {
          if (db.inTransaction) prepared("ROLLBACK").run()
          throw e
        }
      },
      catch: failure("statement failed")
    }))

/**
 * One connection (SQLite serializes writers anyway) behind one permit: a transaction holds the permit from BEGIN to
 * COMMIT; a plain statement waits for it (so it never runs inside another fiber's transaction), then gives it back
 * and runs synchronously; a stream holds it while its rows are read (outside a transaction).
 */
const make = (filename: string) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(open(filename), (db) => Effect.sync(() => db.close()))
    const statements = new Map<string, Sqlite.Statement>()
    const permit = yield* Effect.makeSemaphore(1)
    retain(db, statements)
    const prepared = (sql: string) => {
      let s = statements.get(sql)
      if (!s) statements.set(sql, s = db.prepare(sql))
      return s
    }
    const { run, values } = runners(prepared)
    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        transformRows ? Effect.map(run(sql, params, false), transformRows) : run(sql, params, false),
      executeRaw: (sql, params) => run(sql, params, true),
      executeValues: values,
      executeUnprepared: (sql, params, transformRows) =>
        transformRows ? Effect.map(run(sql, params ?? [], false), transformRows) : run(sql, params ?? [], false),
      executeStream: (sql, params, transformRows) => {
        const rows = stream(sql, params)
        return transformRows
          ? Stream.mapChunks(rows, (chunk) => Chunk.unsafeFromArray(transformRows([...chunk])))
          : rows
      }
    }
    /**
     * Rows read as they are pulled (better-sqlite3's iterator), the connection held meanwhile: while an iterator is
     * open, no other statement may run on it. Inside a transaction its fiber holds the permit already.
     */
    const stream = (sql: string, params: ReadonlyArray<unknown>) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        if (!db.inTransaction) yield* Effect.acquireRelease(permit.take(1), () => permit.release(1))
        const rows = yield* Effect.acquireRelease(
          Effect.try({ try: () => prepared(sql).iterate(...params), catch: failure("statement failed") }),
          (it) => Effect.sync(() => void it.return?.())
        )
        return Stream.fromIterable({ [Symbol.iterator]: () => rows } as Iterable<any>)
      }))
    const writeAll = writerOf(db, prepared, permit)
    const client = yield* Client.make({
      acquirer: permit.withPermits(1)(Effect.succeed(connection)),
      // the permit is held for the transaction's scope
      transactionAcquirer: Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(
          restore(permit.take(1)),
          Effect.as(Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, permit.release(1))), connection)
        )
      ),
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]]
    })
    return Context.make(Client.SqlClient, client).pipe(Context.add(SqliteWriter, { writeAll }))
  })

/** An @effect/sql client over better-sqlite3 (`:memory:` for an in-memory database), and its direct writer. */
export const layer = (filename: string): Layer.Layer<Client.SqlClient | SqliteWriter, SqlError> =>
  Layer.scopedContext(make(filename)).pipe(Layer.provide(Reactivity.layer))
