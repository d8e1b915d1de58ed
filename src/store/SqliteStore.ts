import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import * as DataDirLock from "./DataDirLock.js"

/** The embedded database's file inside a data directory. */
export const databaseFile = (dataDir: string) => join(dataDir, "aeon.db")

const ensureDir = (dataDir: string) =>
  Effect.try({
    try: () => mkdirSync(dataDir, { recursive: true }),
    catch: (cause) =>
      new SqlError({ cause, message: `cannot create the data directory ${dataDir}: ${(cause as Error).message}` })
  })

const open = (filename: string) =>
  SqliteClient.make({ filename, disableWAL: filename === ":memory:" }).pipe(
    Effect.tap((sql) => sql`PRAGMA foreign_keys = ON`),
    Effect.catchAllDefect((cause) =>
      Effect.fail(
        new SqlError({
          cause,
          message: `cannot open the embedded database ${filename}: ${(cause as Error)?.message ?? cause}`
        })
      )
    )
  )

/**
 * The embedded store: SQLite (better-sqlite3) in one file, `aeon.db`, in the data directory, in WAL mode with
 * foreign keys on; `memory` keeps it in memory (tests). One process per data directory (DataDirLock): the server
 * resumes the runs it finds unfinished, and two servers on one directory would both resume them.
 */
export const layer = (dataDir: string): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      if (dataDir === "memory") return yield* open(":memory:")
      yield* ensureDir(dataDir)
      yield* DataDirLock.acquire(dataDir)
      return yield* open(databaseFile(dataDir))
    })
  ).pipe(Layer.provide(Reactivity.layer))
