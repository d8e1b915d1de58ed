import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFile, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exited } from "../support/process.js"
import { gql } from "../support/server.js"
import { outputOf } from "../support/until.js"

/**
 * The whole CLI beside a server (#76 item 3): with `npm start` holding the embedded data directory, every command in
 * a second terminal goes through that server's API — a person's answers, memory, quotas, a run's calls, fork, replay,
 * export and `aeon mcp` (stdio bridged to its /mcp) — rather than being refused for the store the server holds.
 */
const repo = resolve(".")
const dir = mkdtempSync(join(tmpdir(), "aeon-beside-"))
const env: Record<string, string> = {
  ...process.env as Record<string, string>,
  AEON_PORT: "0",
  AEON_QUOTAS: "*:runs=50/day"
}
for (const k of ["AEON_DATA_DIR", "AEON_DATABASE_URL", "AEON_MODEL_PROVIDER", "AEON_LLM_BASE_URL", "OPENAI_API_KEY"]) {
  delete env[k]
}
const server = spawn(process.execPath, [join(repo, "dist/app/server.js")], { cwd: dir, env, stdio: "pipe" })
const said = outputOf(server)
let url = ""
beforeAll(async () => {
  url = (await said.until(/Aeon (http:\/\/\S+\/graphql)/, 60_000))[1]!
}, 90_000)
afterAll(async () => {
  server.kill("SIGINT")
  await exited(server)
})

const aeon = (...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      [join(repo, "bin/aeon.mjs"), ...args],
      { cwd: dir, env, encoding: "utf8" },
      (e, stdout, stderr) => done({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stdout, stderr })
    )
  )

const runIdOf = (text: string) => text.match(/run ([0-9a-f-]{36})/)![1]!

describe("every command beside a running server (#76.3)", () => {
  it("approve: a plan waiting on the server is approved from the CLI, and the run goes on there", async () => {
    const waiting = await aeon("run", "--approve-plan", "Compute (17 + 25) * 3 and explain the result")
    expect(waiting.code, waiting.stderr).toBe(3)
    const runId = runIdOf(waiting.stdout)
    expect(waiting.stdout).toContain(`aeon approve ${runId} plan-p0`)
    const approved = await aeon("approve", runId, "plan-p0")
    expect(approved.code, approved.stderr).toBe(0)
    expect(approved.stdout).toContain(`approved the plan (plan-p0 of run ${runId}); the run goes on on the server`)
    const status = async () => (await gql(url, `{ run(id: "${runId}") { status } }`)).body.data.run.status
    await expect.poll(status, { timeout: 30_000 }).toBe("CONVERGED")
    // a request that is not open is refused in the server's words, coded
    const again = await aeon("approve", runId, "plan-p0")
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/^aeon: /)
  }, 60_000)

  it("memory list, search and forget; quota; inspect --calls", async () => {
    const run = await aeon("run", "Compute 17 + 25")
    expect(run.code, run.stderr).toBe(0)
    const runId = runIdOf(run.stdout)
    const listed = await aeon("memory", "list", "--json")
    expect(listed.code, listed.stderr).toBe(0)
    const memories = JSON.parse(listed.stdout) as Array<{ id: string; runId: string; text: string }>
    expect(memories.some((m) => m.runId === runId)).toBe(true)
    const found = await aeon("memory", "search", "17 + 25")
    expect(found.code, found.stderr).toBe(0)
    expect(found.stdout).toContain(memories.find((m) => m.runId === runId)!.id)
    const quota = await aeon("quota")
    expect(quota.code, quota.stderr).toBe(0)
    expect(quota.stdout).toMatch(/^runs per day: runs without a user have \d+ runs of 50 runs per day left/)
    const calls = await aeon("inspect", runId, "--calls")
    expect(calls.code, calls.stderr).toBe(0)
    expect(calls.stdout).toMatch(/^#\d+ plan_generation_user · offline · pass 0 · PLAN · \d+\+\d+ tokens/m)
    expect(calls.stdout).toContain("── user\n")
    const one = memories.find((m) => m.runId === runId)!.id
    const forgot = await aeon("memory", "forget", one)
    expect(forgot.stdout).toBe(`forgot ${one}\n`)
    expect((await aeon("memory", "forget", one)).stderr).toContain(`no memory ${one}`)
    const none = await aeon("inspect", "nope", "--calls")
    expect(none.stderr).toContain("run nope does not exist")
  }, 60_000)

  it("fork and replay run on the server; export reads the run there", async () => {
    const run = await aeon("run", "--mode", "full", "Compute 6 * 7")
    const runId = runIdOf(run.stdout)
    const replayed = await aeon("replay", runId)
    expect(replayed.code, replayed.stderr).toBe(0)
    expect(replayed.stdout).toMatch(new RegExp(`^identical: run ${runId} replayed from its recordings, \\d+ events`))
    const forked = await aeon("fork", runId, "--at", "3", "--max-llm-calls", "30")
    expect(forked.code, forked.stderr).toBe(0)
    expect(forked.stderr).toMatch(new RegExp(`fork \\S+ of run ${runId} at seq 3`))
    expect(forked.stdout).toMatch(/^converged · /m)
    const forkId = runIdOf(forked.stdout)
    // the server runs the fork with its own model: a model flag cannot apply, and is refused before anything is made
    const own = await aeon("fork", runId, "--at", "3", "--provider", "openai")
    expect(own.code).toBe(1)
    expect(own.stderr).toMatch(/^aeon: the Aeon server at .* holds this data directory .*--provider cannot be used/m)
    const origin = await gql(url, `{ run(id: "${forkId}") { status forkedFrom { runId atSeq } } }`)
    expect(origin.body.data.run).toEqual({ status: "CONVERGED", forkedFrom: { runId, atSeq: 3 } })
    const exported = await aeon("export", runId, "--as-case")
    expect(exported.code, exported.stderr).toBe(0)
    expect(JSON.parse(exported.stdout)).toMatchObject({
      task: "Compute 6 * 7",
      mode: "FULL",
      expect: { status: "CONVERGED" }
    })
  }, 90_000)

  it("aeon mcp bridges stdio to the server's /mcp: an MCP client runs a task there", async () => {
    const client = new Client({ name: "editor", version: "1" })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(repo, "bin/aeon.mjs"), "mcp"],
        cwd: dir,
        env,
        stderr: "pipe"
      })
    )
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name)
      expect(tools).toContain("run_task")
      const result = await client.callTool({ name: "run_task", arguments: { task: "Compute 20 + 22" } })
      const text = JSON.stringify(result.content)
      expect(text).toContain("42")
      // the run is the server's: its list holds it
      const runs = await gql(url, `{ runs(first: 50) { edges { node { task } } } }`)
      expect(JSON.stringify(runs.body.data.runs)).toContain("Compute 20 + 22")
    } finally {
      await client.close()
    }
  }, 60_000)
})
