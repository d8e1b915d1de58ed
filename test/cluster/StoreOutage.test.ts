import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { freePort, slowArithmeticScript, startProcess } from "../support/process.js"
import { awaitRun, gql, untilEvent, untilHealth } from "../support/server.js"

/**
 * A cluster runner whose database goes away mid-run for longer than AEON_STORE_OUTAGE_MS (#46): the run's attempt
 * ends, and the runner takes the run up again once the database is back — no restart, no other runner needed. A
 * database of the test's own (ALLOW_CONNECTIONS false, its backends terminated). Needs PostgreSQL.
 */
const base = process.env.AEON_TEST_DATABASE_URL
const name = `aeon_cluster_outage_${Date.now().toString(36)}_${process.pid}`
const adminRuntime = base
  ? ManagedRuntime.make(PgClient.layer({ url: Redacted.make(base) }).pipe(Layer.orDie))
  : undefined
const admin = (statement: string) =>
  adminRuntime!.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.orDie))
const refuse = async () => {
  await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`)
  await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`)
}
const allow = () => admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`)

const dir = mkdtempSync(join(tmpdir(), "aeon-cluster-outage-"))
let runner: ReturnType<typeof startProcess> | undefined
let url = ""

describe.skipIf(!base)("a cluster runner whose database goes away mid-run (PostgreSQL)", () => {
  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`)
    const db = new URL(base!)
    db.pathname = `/${name}`
    runner = startProcess({
      AEON_CLUSTER: "1",
      AEON_DATABASE_URL: db.toString(),
      AEON_PORT: "0",
      AEON_RUNNER_PORT: String(await freePort()),
      AEON_MODEL_PROVIDER: "scripted",
      AEON_SCRIPT: slowArithmeticScript(dir, 2_000),
      AEON_STORE_OUTAGE_MS: "1000",
      // the shard locks refreshed rarely: the runner keeps its shards through the outage, so the run stays its own
      // (a runner that cannot refresh them lets them go, and the cluster places the run again once the database is
      // back: the path a killed runner's runs take, tested in Cluster.test.ts)
      AEON_SHARD_LOCK_REFRESH: "60 seconds",
      AEON_SHARD_LOCK_EXPIRATION: "120 seconds"
    })
    url = await runner.url
  }, 90_000)
  afterEach(async () => {
    await allow().catch(() => {})
  })
  afterAll(async () => {
    runner?.child.kill("SIGKILL")
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {})
    await adminRuntime?.dispose()
  })

  it("past the bound the attempt ends; the runner takes the run up again once the database is back", async () => {
    const started = await gql(
      url,
      `mutation { runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL }) { id } }`
    )
    const id = started.body.data.runTask.id as string
    await untilEvent(url, id, "StepStarted")
    await refuse()
    // the attempt ends after the bound: no run here any more; it counts as waiting for its store
    const h = await untilHealth(url, "ok storeFailure runsWaitingForStore activeRuns", (now) => now.activeRuns === 0)
    expect(h).toMatchObject({ ok: false, runsWaitingForStore: 1 })
    expect(h.storeFailure).toMatch(/PostgreSQL/)
    await allow()
    // followed again once the runner answers from its database
    await untilHealth(url, "ok", (now) => now.ok === true, 60_000)
    const finished: { status: string; events: Array<{ seq: number; type: string }> } = await awaitRun(url, id, {
      query: `query($id: ID!) { run(id: $id) { status events { seq type } } }`
    })
    expect(finished.status, runner!.output()).toBe("CONVERGED")
    expect(finished.events.map((e) => e.seq)).toEqual(finished.events.map((_, i) => i + 1))
    expect(finished.events.filter((e) => e.type === "RunFinished")).toHaveLength(1)
    expect(finished.events.filter((e) => e.type === "RunResumed").length).toBeGreaterThan(0)
  }, 120_000)
})
