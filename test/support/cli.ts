import { execFile, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Arrivals } from "./until.js"

/**
 * The built `aeon` command in a data directory of its own (the embedded store, the offline model: no provider or
 * database setting of the machine leaks in). `dir` holds the data directory; tests put their files beside it.
 */
export const cliIn = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const env: Record<string, string> = { ...process.env as Record<string, string>, AEON_DATA_DIR: join(dir, "data") }
  for (
    const k of ["AEON_MODEL_PROVIDER", "AEON_LLM_API_KEY", "AEON_LLM_BASE_URL", "OPENAI_API_KEY", "AEON_DATABASE_URL"]
  ) {
    delete env[k]
  }
  /** `aeon ARGS` to its end; `untilSaid` waits for what it will say on stderr while it runs. */
  const aeonWatched = (...args: Array<string>) => {
    const said = new Arrivals<string>()
    const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ["bin/aeon.mjs", ...args],
        { env, encoding: "utf8", timeout: 120_000 },
        (e, stdout, stderr) => resolve({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stdout, stderr })
      )
      child.stderr?.on("data", (d) => said.push(String(d)))
      child.once("exit", (code) => said.end(`aeon exited (${code})`))
    })
    const untilSaid = (text: string, timeoutMs?: number) =>
      said.until((all) => (all.join("").includes(text) ? true : undefined), timeoutMs)
    return { done, untilSaid }
  }
  const aeon = (...args: Array<string>) => aeonWatched(...args).done
  return { dir, env, aeon, aeonWatched }
}

/**
 * `aeon ARGS` on a pseudo-terminal (util-linux `script`, 120 columns): once its output shows `prompt`, `typed` is
 * typed. Its whole output and exit code.
 */
export const onTerminal = (env: Record<string, string>, args: string, prompt: string, typed: string) => {
  const child = spawn("script", [
    "-qec",
    `stty cols 120 rows 40; ${process.execPath} bin/aeon.mjs ${args}`,
    "/dev/null"
  ], { env, stdio: ["pipe", "pipe", "pipe"] })
  let out = ""
  let answered = false
  child.stdout.on("data", (d) => {
    out += d
    if (!answered && out.includes(prompt)) {
      answered = true
      child.stdin.write(typed)
    }
  })
  return new Promise<{ out: string; code: number | null }>((resolve) =>
    child.once("exit", (code) => resolve({ out, code }))
  )
}
