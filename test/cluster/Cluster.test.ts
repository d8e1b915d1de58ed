import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Redacted } from "effect"
import { createClient as createWsClient } from "graphql-ws"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { exited, slowArithmeticScript, startProcess } from "../support/process.js"
import { gql, waitFor } from "../support/server.js"

/**
 * Three `aeon serve` runners of one cluster on the local PostgreSQL (a database of their own: shard locks are advisory
 * locks, database-wide). Runs are submitted round-robin, each followed from a server other than its runner; one runner
 * is killed (`kill -9`) mid-way. Needs PostgreSQL: skipped, with the reason printed, without AEON_TEST_DATABASE_URL.
 */
const base = process.env.AEON_TEST_DATABASE_URL
if (!base) console.log("test/cluster skipped: a cluster needs PostgreSQL; set AEON_TEST_DATABASE_URL to run it")

const RUNS = 30
const dir = mkdtempSync(join(tmpdir(), "aeon-cluster-"))
// each step takes a while: the kill lands while runs are mid-way
const script = slowArithmeticScript(dir, 4_000)

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

type Runner = Omit<ReturnType<typeof startProcess>, "url"> & { readonly address: string; url: string }
const database = `aeon_cluster_${Date.now().toString(36)}_${process.pid}`
const admin = (statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(base!) }))
    )
  )
const runners: Array<Runner> = []

const startRunner = async (): Promise<Runner> => {
  const url = new URL(base!)
  url.pathname = `/${database}`
  const runnerPort = await freePort()
  const started = startProcess({
    AEON_CLUSTER: "1",
    AEON_DATABASE_URL: url.toString(),
    AEON_PORT: "0",
    AEON_RUNNER_PORT: String(runnerPort),
    AEON_MODEL_PROVIDER: "scripted",
    AEON_SCRIPT: script
  })
  const runner: Runner = { child: started.child, output: started.output, address: `127.0.0.1:${runnerPort}`, url: "" }
  runners.push(runner)
  runner.url = await started.url
  return runner
}

const SUB = `subscription($runId: ID!) { runEvents(runId: $runId, fromSeq: 0) { seq type } }`

/** Every event of a run, followed live from a server, until the subscription ends. */
const follow = (url: string, runId: string) => {
  const client = createWsClient({ url: url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
  const seen: Array<{ seq: number; type: string }> = []
  const done = (async () => {
    for await (
      const r of client.iterate<{ runEvents: { seq: number; type: string } }>({
        query: SUB,
        variables: { runId }
      })
    ) seen.push(r.data!.runEvents)
    await client.dispose()
    return seen
  })()
  return done
}

describe.skipIf(!base)("a cluster of three runners (PostgreSQL)", () => {
  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`)
    for (let i = 0; i < 3; i++) await startRunner()
  }, 120_000)
  afterAll(async () => {
    for (const r of runners) if (r.child.exitCode === null) r.child.kill("SIGKILL")
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined)
  })

  it(
    "a runner killed mid-way: every run finishes exactly once, followers see every event once, no completed step runs twice",
    async () => {
      const [victim, a, b] = runners as [Runner, Runner, Runner]
      // every runner has its shards before runs come (a runner that joins later takes shards from the others)
      await new Promise((r) => setTimeout(r, 3_000))
      const ids: Array<string> = []
      for (let i = 0; i < RUNS; i++) {
        const at = runners[i % 3]!
        const r = await gql(
          at.url,
          `mutation { runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL }) { id status } }`
        )
        expect(r.body.errors).toBeUndefined()
        ids.push(r.body.data.runTask.id)
      }
      // each run followed from a server other than its runner (never the one about to die)
      const runnerOf = async (id: string) =>
        waitFor(
          async () =>
            ((await gql(a.url, `query($id: ID!) { run(id: $id) { runner } }`, { id })).body.data.run.runner as
              | string
              | null) ?? undefined,
          30_000
        )
      const initialRunner = new Map<string, string>()
      const followed = await Promise.all(ids.map(async (id, i) => {
        const runner = await runnerOf(id)
        initialRunner.set(id, runner)
        const from = runner === a.address ? b : runner === b.address ? a : i % 2 ? a : b
        return { done: follow(from.url, id) } // wrapped: an async function returning the promise would wait for it
      }))
      const onVictim = ids.filter((id) => initialRunner.get(id) === victim.address)
      expect(onVictim.length).toBeGreaterThan(0)

      // kill -9 while the victim's runs are mid-way: as soon as one of them has started a step
      const eventsOf = async (id: string) =>
        (await gql(a.url, `query($id: ID!) { run(id: $id) { events { type } } }`, { id })).body.data.run.events.map((
          e: { type: string }
        ) => e.type) as Array<string>
      await waitFor(async () => ((await eventsOf(onVictim[0]!)).includes("StepStarted") ? true : undefined), 30_000)
      victim.child.kill("SIGKILL")
      const killedAt = Date.now()
      await exited(victim.child)
      const cutShort: Array<string> = []
      for (const id of onVictim) if (!(await eventsOf(id)).includes("RunFinished")) cutShort.push(id)
      expect(cutShort.length, "runs the kill left unfinished").toBeGreaterThan(0)

      const streams = await Promise.all(followed.map((f) => f.done))
      const resumedWithin = Date.now() - killedAt
      const failover: Array<number> = []
      for (const [i, id] of ids.entries()) {
        const seqs = streams[i]!.map((e) => e.seq)
        expect(seqs, `run ${id}: gapless, no duplicate`).toEqual(seqs.map((_, k) => k + 1))
        expect(streams[i]!.at(-1)?.type).toBe("RunFinished")
        const run = (await gql(
          a.url,
          `query($id: ID!) { run(id: $id) { status runner finalAnswer { answerText } events { seq type at ... on StepStartedEvent { passNumber stepId } ... on StepFinishedEvent { passNumber stepId } } } }`,
          { id }
        )).body.data.run
        expect(run.status, `run ${id}`).toBe("CONVERGED")
        expect(run.finalAnswer.answerText).toContain("126")
        expect(run.events.filter((e: { type: string }) => e.type === "RunFinished")).toHaveLength(1)
        expect(run.events.map((e: { seq: number }) => e.seq)).toEqual(seqs)
        // a step that finished never starts again; only the one in flight at the kill may start twice
        const finished = new Set<string>()
        for (const e of run.events as Array<{ type: string; passNumber: number; stepId: string }>) {
          const key = `${e.passNumber}/${e.stepId}`
          if (e.type === "StepStarted") expect(finished.has(key), `run ${id}: ${key} ran again`).toBe(false)
          if (e.type === "StepFinished") finished.add(key)
        }
        if (cutShort.includes(id)) {
          const resumedAt = run.events.find((e: { type: string }) => e.type === "RunResumed")?.at
          expect(resumedAt, `run ${id} resumed`).toBeDefined()
          failover.push(Date.parse(resumedAt) - killedAt)
          expect(run.runner).not.toBe(victim.address)
        }
      }
      console.log(
        `cluster: ${RUNS} runs, ${onVictim.length} on the killed runner, ${cutShort.length} cut short and resumed ` +
          `elsewhere ${Math.min(...failover)}–${
            Math.max(...failover)
          } ms after the kill; all finished ${resumedWithin} ms after it`
      )
    },
    180_000
  )
})
