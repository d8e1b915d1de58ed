import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import * as DataDirLock from "./DataDirLock.js"
import * as SqliteClient from "./SqliteClient.js"

/** The embedded database's file inside a data directory. */
export const databaseFile = (dataDir: string) => join(dataDir, "aeon.db")

const ensureDir = (dataDir: string) =>
  Effect.try({
    try: () => mkdirSync(dataDir, { recursive: true }),
    catch: (cause) =>
      new SqlError({ cause, message: `cannot create the data directory ${dataDir}: ${(cause as Error).message}` })
  })

/**
 * The embedded store: SQLite (better-sqlite3) in one file, `aeon.db`, in the data directory, in WAL mode with
 * foreign keys on; `memory` keeps it in memory (tests). One process per data directory (DataDirLock): the server
 * resumes the runs it finds unfinished, and two servers on one directory would both resume them.
 */
export const layer = (dataDir: string): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  dataDir === "memory"
    ? SqliteClient.layer(":memory:")
    : SqliteClient.layer(databaseFile(dataDir)).pipe(
      Layer.provide(Layer.scopedDiscard(Effect.zipRight(ensureDir(dataDir), DataDirLock.acquire(dataDir))))
    )
