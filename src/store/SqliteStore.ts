import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { codeOf } from "../support/Fields.js"
import { messageOf } from "../support/Thrown.js"
import * as DataDirLock from "./DataDirLock.js"
import * as SqliteClient from "./SqliteClient.js"

/** The embedded database's file inside a data directory. */
export const databaseFile = (dataDir: string) => join(dataDir, "aeon.db")

/**
 * Creates the data directory and its missing parents one level at a time. (Node 20's recursive mkdirSync spins
 * forever, ignoring signals, under a parent it may not create in, such as /proc.)
 */
const ensureDir = (dataDir: string) =>
  Effect.try({
    try: () => {
      const missing: Array<string> = []
      for (let dir = resolve(dataDir); !existsSync(dir); dir = dirname(dir)) {
        missing.unshift(dir)
        if (dirname(dir) === dir) break
      }
      for (const dir of missing) mkdirSync(dir)
    },
    catch: (cause) =>
      new SqlError({
        cause,
        message: `cannot create the data directory ${dataDir} (AEON_DATA_DIR): ${codeOf(cause) ?? messageOf(cause)}`
      })
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
