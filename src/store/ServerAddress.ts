import { Effect } from "effect"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { codeOf, fieldOf } from "../support/Fields.js"

/**
 * Where the server holding an embedded data directory listens: written beside its lock (`server.json`: its URL and
 * pid) while it serves, removed when it stops. The CLI on the same directory reads it to run through that server —
 * one process writes the directory, and the CLI's runs show in that server's viewer — and the lock's refusal names it.
 */
const FILE = "server.json"

/** Publishes `url` for `dataDir` for the scope's life. */
export const publish = (dataDir: string, url: string) =>
  Effect.acquireRelease(
    Effect.sync(() => writeFileSync(join(dataDir, FILE), JSON.stringify({ url, pid: process.pid }))),
    () => Effect.sync(() => rmSync(join(dataDir, FILE), { force: true }))
  )

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return codeOf(e) === "EPERM"
  }
}

/** The URL of the server serving from `dataDir` now (its process alive), if one published it. */
export const serverHolding = (dataDir: string): string | undefined => {
  try {
    const published: unknown = JSON.parse(readFileSync(join(dataDir, FILE), "utf8"))
    const pid = fieldOf(published, "pid")
    const url = fieldOf(published, "url")
    return typeof url === "string" && typeof pid === "number" && pid !== process.pid && alive(pid) ? url : undefined
  } catch {
    return undefined
  }
}
