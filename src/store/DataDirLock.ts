import { SqlError } from "@effect/sql/SqlError"
import type Sqlite from "better-sqlite3"
import { Effect } from "effect"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { codeOf, processWide } from "../support/Fields.js"
import { messageOf } from "../support/Thrown.js"
import { serverHolding } from "./ServerAddress.js"
import { driver, retain } from "./SqliteClient.js"
import { storeCauseInWords } from "./StoreCause.js"

/** The data directories this process holds (on globalThis: a module evaluated again must see the same). */
const held: Set<string> = processWide(Symbol.for("aeon/sqlite/locks"), (v) => v instanceof Set, () => new Set())

const inUse = (dataDir: string) => {
  let owner = ""
  try {
    owner = readFileSync(join(dataDir, "aeon.pid"), "utf8").trim()
  } catch { /* written a moment after the lock is taken */ }
  const server = serverHolding(dataDir)
  const who = /^\d+$/.test(owner) ? `process ${owner}` : "another process"
  return new Error(
    server
      ? `the embedded database at ${dataDir} is held by the Aeon server at ${server} (${who}), and this command ` +
        "runs in its own process (it cannot go through the server): stop the server, or set AEON_DATA_DIR to " +
        "another directory"
      : `the embedded database at ${dataDir} is in use by ${who} ` +
        "(an aeon server or CLI); stop it, or set AEON_DATA_DIR to another directory, or share a PostgreSQL server " +
        "through AEON_DATABASE_URL"
  )
}

/** The lock: an exclusive lock on the SQLite file `aeon.lock`, held by an open connection (BUSY: another holds it). */
const lockFile = (Driver: typeof Sqlite, path: string) => {
  const db = new Driver(path, { timeout: 0 })
  retain(db)
  try {
    // exclusive locking mode keeps the lock the first write takes until the connection closes; no journal file
    // exec only: a prepared Statement would become garbage once run, and on Node 24 its finalizer aborts the process
    // (SqliteClient's `retain` says why)
    db.exec(
      "PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (at TEXT); " +
        "INSERT INTO held VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
    )
    return db
  } catch (e) {
    db.close()
    throw e
  }
}

/**
 * The lock, tried a few times a few milliseconds apart while it is BUSY: two processes starting at the same instant
 * can each take a shared lock and both be refused the exclusive one (SQLite's deadlock avoidance), and then neither
 * would hold it. A lock another process holds stays BUSY through the tries (about 150 ms in all).
 */
const lockFileContended = (Driver: typeof Sqlite, path: string) => {
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (let attempt = 1;; attempt++) {
    try {
      return lockFile(Driver, path)
    } catch (e) {
      if (attempt >= 6 || (codeOf(e) !== "SQLITE_BUSY" && codeOf(e) !== "SQLITE_LOCKED")) throw e
      Atomics.wait(pause, 0, 0, 10 + Math.floor(Math.random() * 30)) // a short synchronous pause, jittered
    }
  }
}

/**
 * The embedded database may be open in one process at a time: a server resumes the runs it finds unfinished, and two
 * processes on one directory would both resume (and run) them. The lock is one the kernel releases when its process
 * dies, however it dies (an exclusive SQLite lock, an fcntl lock underneath, on `aeon.lock`): nothing is trusted
 * from a file's contents, so a pid reused by another process (PID 1 in a container after a crash) or a restart
 * racing a dying process cannot keep it. `aeon.pid` names the owner for the refusal's message only. Released when
 * the scope closes.
 */
export const acquire = (dataDir: string) => Effect.flatMap(driver, (Driver) => acquireWith(Driver, dataDir))

const acquireWith = (Driver: typeof Sqlite, dataDir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const path = join(dataDir, "aeon.lock")
        if (held.has(dataDir)) throw new Error(`the embedded database at ${dataDir} is already open in this process`)
        let db: Sqlite.Database
        try {
          db = lockFileContended(Driver, path)
        } catch (e) {
          if (codeOf(e) === "SQLITE_BUSY" || codeOf(e) === "SQLITE_LOCKED") throw inUse(dataDir)
          if (codeOf(e) !== "SQLITE_NOTADB") throw e
          rmSync(path, { force: true }) // a text lock an earlier version left: its pid proves nothing
          db = lockFile(Driver, path)
        }
        held.add(dataDir)
        writeFileSync(join(dataDir, "aeon.pid"), String(process.pid))
        return { db, path }
      },
      catch: (cause) => {
        // a refusal of ours says who holds it; a failure of the disk says why, in words
        const words = storeCauseInWords(cause)
        return new SqlError({
          cause,
          message: words ? `cannot open the embedded database at ${dataDir}: ${words}` : messageOf(cause)
        })
      }
    }),
    ({ db }) =>
      Effect.sync(() => {
        held.delete(dataDir)
        rmSync(join(dataDir, "aeon.pid"), { force: true })
        db.close()
      })
  ).pipe(Effect.map(({ path }) => path))
