import { Effect, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { connect, createServer } from "node:net"
import { join } from "node:path"
import { freshDatabase } from "./database.js"
import { outputOf } from "./until.js"

/** `npm start`'s entry as its own process; resolves with its URL once it listens. */
export const startProcess = (env: Record<string, string>) => {
  const child = spawn(process.execPath, ["dist/app/server.js"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const said = outputOf(child)
  // the URL once it listens; a server that exits first, or never listens, fails with what it printed
  const url = said.until(/Aeon (http:\/\/\S+\/graphql)/, 60_000).then(
    (m) => m[1]!,
    (e) => Promise.reject(new Error(`the server did not start: ${e.message}\n${said.text()}`))
  )
  url.catch(() => {}) // tests that expect the start to fail do not await it
  return { child, url, output: said.text, said }
}
export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))

/** A script file for `AEON_MODEL_PROVIDER=scripted`: the offline stand-in, each reasoning step taking `delayMs`. */
export const slowArithmeticScript = (dir: string, delayMs: number) => {
  const file = join(dir, `script-${delayMs}.json`)
  writeFileSync(
    file,
    JSON.stringify({
      fallback: "offline",
      reasoning_step_user: [{
        delayMs,
        output: { stepOutput: "(17 + 25) * 3 = 126", clarityState: "CLEAR", handoffToNext: "126" }
      }]
    })
  )
  return file
}

/** A loopback port free now (for a process told its port, like a cluster runner). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

/** Whether something listens on a loopback port (a local PostgreSQL, say). */
export const reachable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => (socket.destroy(), resolve(true)))
    socket.once("error", () => resolve(false))
  })

/**
 * The environment of a server process on a fresh database (set up first) with a scripted model: port chosen by the
 * system, its data directory, the database's URL when it is PostgreSQL, and `more`.
 */
export const scriptedServerEnv = async (
  dataDir: string,
  script: string,
  more: Record<string, string> = {}
): Promise<Record<string, string>> => {
  const db = freshDatabase()
  await Effect.runPromise(db.setup)
  return {
    AEON_PORT: "0",
    AEON_DATA_DIR: dataDir,
    AEON_MODEL_PROVIDER: "scripted",
    AEON_SCRIPT: script,
    ...(db.url ? { AEON_DATABASE_URL: Redacted.value(db.url) } : {}),
    ...more
  }
}
