import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { exited, slowArithmeticScript, startProcess } from "../support/process.js"
import { seedScriptFile, verdict } from "../support/scripts.js"
import { awaitRun, gql, waitFor } from "../support/server.js"
import { outputOf } from "../support/until.js"

/**
 * A stop that stops (#69 item 1): beside `npm start` (the server holds the embedded data directory and runs what the
 * CLI starts), Ctrl-C of `aeon run` and of a turn of `aeon chat` cancels the run on the server — it ends CANCELLED,
 * not CONVERGED, and a chat's thread holds no answer for the stopped turn; `aeon cancel RUN` stops a run where it
 * runs, beside a server or on the stored log of a run nobody runs.
 */
const dir = mkdtempSync(join(tmpdir(), "aeon-cancel-"))
const dataDir = join(dir, "data")
// each reasoning step takes 4 s: long enough to be stopped while it runs
const script = slowArithmeticScript(dir, 4_000)
const server = startProcess({
  AEON_PORT: "0",
  AEON_DATA_DIR: dataDir,
  AEON_MODEL_PROVIDER: "scripted",
  AEON_SCRIPT: script
})
afterAll(async () => {
  server.child.kill("SIGINT")
  await exited(server.child)
})

const { env } = cliIn("aeon-cancel-cli-")
const besideServer = { ...env, AEON_DATA_DIR: dataDir }
const TASK = "Compute (17 + 25) * 3 and explain the result"

const statusOf = async (url: string, id: string) =>
  (await gql(url, `query($id: ID!) { run(id: $id) { status events { type } } }`, { id })).body.data.run as {
    status: string
    events: Array<{ type: string }>
  }

/** The newest run on the server once one of its steps has started (the run is under way, paying for a call). */
const runUnderWay = (url: string) =>
  waitFor(async () => {
    const runs = (await gql(url, `{ runs(first: 1) { edges { node { id status task } } } }`)).body.data.runs.edges
    const node = runs[0]?.node as { id: string; status: string; task: string } | undefined
    if (node?.status !== "RUNNING") return undefined
    const run = await statusOf(url, node.id)
    return run.events.some((e) => e.type === "StepStarted") ? node.id : undefined
  }, 60_000)

describe("a stop that stops, beside a server (#69.1)", () => {
  it("Ctrl-C of aeon run beside the server cancels the run there: it ends CANCELLED", async () => {
    const url = await server.url
    const child = spawn(process.execPath, ["bin/aeon.mjs", "run", "--mode", "full", TASK], {
      env: besideServer,
      stdio: ["ignore", "pipe", "pipe"]
    })
    const said = outputOf(child)
    const id = await runUnderWay(url)
    child.kill("SIGINT")
    await exited(child)
    expect(said.err()).toContain(`cancelled run ${id} on the server`)
    expect((await awaitRun(url, id)).status).toBe("CANCELLED")
  }, 90_000)

  it(
    "Ctrl-C of a turn of aeon chat on a terminal beside the server: the run ends CANCELLED, the thread holds no answer",
    async () => {
      const url = await server.url
      // a pseudo-terminal (util-linux script): Ctrl-C is a key readline reads, as a person presses it
      const child = spawn("script", [
        "-qec",
        `${process.execPath} bin/aeon.mjs chat --thread stopped --mode full`,
        "/dev/null"
      ], { env: besideServer, stdio: ["pipe", "pipe", "pipe"] })
      const said = outputOf(child)
      await said.until("you> ")
      child.stdin!.write(`${TASK}\r`)
      const id = await runUnderWay(url)
      child.stdin!.write("\x03")
      await said.until("(turn stopped)")
      child.stdin!.write("/exit\r")
      await exited(child)
      expect((await statusOf(url, id)).status).toBe("CANCELLED")
      const turns = (await gql(url, `{ thread(id: "stopped") { turns { edges { node { runId status answer } } } } }`))
        .body.data.thread.turns.edges.map((e: { node: unknown }) => e.node)
      expect(turns).toEqual([{ runId: id, status: "CANCELLED", answer: null }])
    },
    90_000
  )

  it("a SIGINT that ends aeon chat (its input piped) cancels the turn under way on the server first", async () => {
    const url = await server.url
    const child = spawn(process.execPath, ["bin/aeon.mjs", "chat", "--thread", "signalled", "--mode", "full"], {
      env: besideServer,
      stdio: ["pipe", "pipe", "pipe"]
    })
    child.stdin!.write(`${TASK}\n`)
    const id = await runUnderWay(url)
    child.kill("SIGINT")
    await exited(child)
    expect((await statusOf(url, id)).status).toBe("CANCELLED")
  }, 90_000)

  it(
    "aeon cancel RUN beside the server stops it there; a run that has ended is said so; an unknown run is refused",
    async () => {
      const url = await server.url
      const id = (await gql(url, `mutation($t: String!) { runTask(input: { task: $t, mode: FULL }) { id } }`, {
        t: TASK
      })).body.data.runTask.id as string
      await runUnderWay(url)
      const aeon = (...args: Array<string>) => cliWith(besideServer, ...args)
      const cancelled = await aeon("cancel", id)
      expect(cancelled.code, cancelled.stderr).toBe(0)
      expect(cancelled.stdout).toBe(`cancelled run ${id}\n`)
      expect((await statusOf(url, id)).status).toBe("CANCELLED")
      expect((await aeon("cancel", id)).stdout).toBe(`run ${id} had already ended (cancelled): nothing to cancel\n`)
      const unknown = await aeon("cancel", "no-such-run")
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toBe("aeon: run no-such-run does not exist\n")
    },
    90_000
  )
})

const cliWith = (environment: Record<string, string>, ...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["bin/aeon.mjs", ...args], { env: environment })
    const said = outputOf(child)
    child.once("exit", (code) => resolve({ code: code ?? 1, stdout: said.out(), stderr: said.err() }))
  })

describe("aeon cancel without a server (#69.1)", () => {
  it(
    "a run stopped to wait for a person ends CANCELLED on its stored log, and is said to have ended after",
    async () => {
      const own = cliIn("aeon-cancel-own-")
      const waitingScript = seedScriptFile(join(own.dir, "approval.json"), {
        convergence_assessment_user: [verdict(true)]
      })
      const first = await own.aeon(
        "run",
        "Seed the memory",
        "--full",
        "--script",
        waitingScript,
        "--approve-tools",
        "memory.write"
      )
      expect(first.code, first.stderr).toBe(3)
      const runId = first.stdout.match(/aeon approve (\S+) /)![1]!
      const cancelled = await own.aeon("cancel", runId)
      expect(cancelled.code, cancelled.stderr).toBe(0)
      expect(cancelled.stdout).toBe(`cancelled run ${runId}\n`)
      expect(JSON.parse((await own.aeon("runs", "--status", "CANCELLED", "--json")).stdout)).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: runId, status: "CANCELLED" })])
      )
      expect((await own.aeon("cancel", runId)).stdout).toContain("had already ended (cancelled)")
      expect((await own.aeon("cancel", "nope")).stderr).toBe("aeon: run nope does not exist\n")
    },
    90_000
  )
})
