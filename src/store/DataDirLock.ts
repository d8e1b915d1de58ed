import { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs"
import { join } from "node:path"

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM" // exists, owned by someone else
  }
}

/**
 * The embedded database may be open in one process at a time: a server resumes the runs it finds unfinished,
 * and two processes on one directory would both resume (and run) them. A lock file holds the owner's pid; a lock whose process
 * is gone is stale and taken over. Released when the scope closes.
 */
export const acquire = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const path = join(dataDir, "aeon.lock")
        for (let attempt = 0; attempt < 2; attempt++) {
          try {
            const fd = openSync(path, "wx")
            writeSync(fd, String(process.pid))
            closeSync(fd)
            return path
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
            const owner = Number(readFileSync(path, "utf8").trim())
            if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
              throw new Error(
                `the embedded database at ${dataDir} is in use by process ${owner} (an aeon server or CLI); ` +
                  "stop it, or set AEON_DATA_DIR to another directory, or share a PostgreSQL server through AEON_DATABASE_URL",
                { cause: e }
              )
            }
            if (owner === process.pid) {
              throw new Error(`the embedded database at ${dataDir} is already open in this process`, { cause: e })
            }
            rmSync(path, { force: true }) // stale: its process is gone
          }
        }
        throw new Error(`cannot take the lock of the embedded database at ${dataDir}`)
      },
      catch: (cause) => new SqlError({ cause, message: (cause as Error).message })
    }),
    (path) => Effect.sync(() => rmSync(path, { force: true }))
  )
