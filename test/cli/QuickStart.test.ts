import { execFile, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { exited } from "../support/process.js"
import { gql } from "../support/server.js"
import { outputOf } from "../support/until.js"

/**
 * The quick start as written, in a folder of its own (#60 item 1): `npm start` (the server, its data directory the
 * default .aeon/data), then, in another terminal, `./bin/aeon.mjs run "What is 6 * 7 plus 3?"` — which once exited 1
 * ("the embedded database at .aeon/data is in use by process N"). The CLI runs through the server holding the
 * directory: it prints the answer as ever, and the run is the server's (its viewer lists it).
 */
const repo = resolve(".")
const dir = mkdtempSync(join(tmpdir(), "aeon-quick-start-"))
const env: Record<string, string> = { ...process.env as Record<string, string>, AEON_PORT: "0" }
for (const k of ["AEON_DATA_DIR", "AEON_DATABASE_URL", "AEON_MODEL_PROVIDER", "AEON_LLM_BASE_URL", "OPENAI_API_KEY"]) {
  delete env[k]
}
const server = spawn(process.execPath, [join(repo, "dist/app/server.js")], { cwd: dir, env, stdio: "pipe" })
const said = outputOf(server)
const listening = said.until(/Aeon (http:\/\/\S+\/graphql)/, 60_000).then((m) => m[1]!)
afterAll(async () => {
  server.kill("SIGINT")
  await exited(server)
})

const aeonWith = (more: Record<string, string>, ...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      [join(repo, "bin/aeon.mjs"), ...args],
      { cwd: dir, env: { ...env, ...more }, encoding: "utf8" },
      (e, stdout, stderr) => done({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stdout, stderr })
    )
  )

const aeon = (...args: Array<string>) => aeonWith({}, ...args)

describe("the quick start with `npm start` running (#60.1)", () => {
  it("aeon run in another terminal runs through the server, and its run shows in the server's list", async () => {
    const url = await listening
    const r = await aeon("run", "What is 6 * 7 plus 3?")
    expect(r.stderr).toContain(`running on the server at ${url}`)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("\n45\n")
    expect(r.stdout).toMatch(/^converged · 1 pass · .* · offline · run [0-9a-f-]{36}$/m)
    const runId = r.stdout.match(/run ([0-9a-f-]{36})/)![1]!
    const listed = await gql(url, `{ runs { edges { node { id status task } } } }`)
    expect(listed.body.data.runs.edges.map((e: { node: unknown }) => e.node)).toContainEqual({
      id: runId,
      status: "CONVERGED",
      task: "What is 6 * 7 plus 3?"
    })

    // --json: the same document as a run of the CLI's own; a flag naming another model is refused, coded
    const json = JSON.parse((await aeon("run", "Compute 17 + 25", "--json")).stdout)
    expect(json).toMatchObject({ status: "CONVERGED", model: "offline" })
    const refused = await aeon("run", "Compute 17 + 25", "--model", "gpt-4o")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^aeon: the Aeon server at .* holds this data directory .*--model cannot be used/m)
    // aeon runs and aeon inspect read through it too
    const runs = await aeon("runs")
    expect(runs.code, runs.stderr).toBe(0)
    expect(runs.stdout).toMatch(new RegExp(`^${runId}  CONVERGED  AUTO .* What is 6 \\* 7 plus 3\\?$`, "m"))
    const inspected = await aeon("inspect", runId)
    expect(inspected.stdout).toContain(`run ${runId} · AUTO · CONVERGED · offline`)
    expect(inspected.stdout).toMatch(/\n45\n/)
    // every other command goes through it too (#76 item 3): the memory the run left, read from the server
    const memory = await aeon("memory", "search", "6 * 7 plus 3")
    expect(memory.code, memory.stderr).toBe(0)
    expect(memory.stdout).toContain(`${runId}:answer  answer  answer of run ${runId}`)
  }, 120_000)

  it(
    "the README's 'a real model' line beside the server says, before the run, that its key is not used (#69.7)",
    async () => {
      const url = await listening
      const r = await aeonWith({ OPENAI_API_KEY: "sk-test", AEON_MODEL: "gpt-4o" }, "run", "What is 6 * 7 plus 3?")
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toContain(
        `aeon: AEON_MODEL, OPENAI_API_KEY are not used: the server at ${url} runs the task with its model (offline)`
      )
      const json = await aeonWith({ ANTHROPIC_API_KEY: "sk-ant" }, "run", "What is 6 * 7 plus 3?", "--json")
      expect(JSON.parse(json.stdout).model).toBe("offline")
      expect(json.stderr).toContain("aeon: ANTHROPIC_API_KEY is not used")
      // nothing set: nothing said
      expect((await aeon("run", "What is 6 * 7 plus 3?")).stderr).not.toContain("not used")
    },
    120_000
  )
})
