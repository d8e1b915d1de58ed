import { Redacted } from "effect"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { backend, freshDatabase } from "../support/database.js"
import { gql, waitFor } from "../support/server.js"

const dir = mkdtempSync(join(tmpdir(), "aeon-process-"))
const script = join(dir, "script.json")
writeFileSync(
  script,
  JSON.stringify({
    fallback: "offline",
    reasoning_step_user: [{
      delayMs: 400,
      output: { stepOutput: "(17 + 25) * 3 = 126", clarityState: "CLEAR", handoffToNext: "126" }
    }]
  })
)

/** `npm start`'s entry as its own process; resolves with its URL once it listens. */
const start = (env: Record<string, string>) => {
  const child = spawn(process.execPath, ["dist/app/server.js"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  const url = waitFor(async () => out.match(/Aeon (http:\/\/\S+\/graphql)/)?.[1], 60_000)
  return { child, url, output: () => out }
}
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))

describe(`the server process (${backend})`, () => {
  it("SIGTERM stops it within a bounded time; the unfinished run resumes on the next start", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const env: Record<string, string> = {
      AEON_PORT: "0",
      AEON_DATA_DIR: join(dir, "data"),
      AEON_MODEL_PROVIDER: "scripted",
      AEON_SCRIPT: script
    }
    if (db.url) env.AEON_DATABASE_URL = Redacted.value(db.url)

    const first = start(env)
    const url1 = await first.url
    const id = (await gql(
      url1,
      `mutation { runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL }) { id } }`
    )).body.data.runTask.id as string
    await waitFor(
      async () => ((await gql(url1, `query($id: ID!) { run(id: $id) { events { type } } }`, { id })).body.data.run
          .events.some((e: { type: string }) => e.type === "StepStarted")
        ? true
        : undefined)
    )
    const stopping = Date.now()
    first.child.kill("SIGTERM")
    expect(await exited(first.child)).toBe(0)
    expect(Date.now() - stopping).toBeLessThan(15_000)
    expect(first.output()).toContain("SIGTERM: stopping")

    const second = start(env)
    const url2 = await second.url
    await waitFor(async () => (second.output().includes("resumed 1 unfinished run(s)") ? true : undefined), 30_000)
    const status = await waitFor(async () => {
      const s =
        (await gql(url2, `query($id: ID!) { run(id: $id) { status finalAnswer { answerText } } }`, { id })).body.data
          .run
      return s.status === "CONVERGED" ? s : undefined
    }, 60_000)
    expect(status.finalAnswer.answerText).toContain("126")
    second.child.kill("SIGINT")
    expect(await exited(second.child)).toBe(0)
  }, 180_000)
})
