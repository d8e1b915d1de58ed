import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Redacted } from "effect"
import { createClient as createWsClient } from "graphql-ws"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import WebSocket from "ws"
import { freePort, reachable, slowArithmeticScript, startProcess } from "../test/support/process.js"
import { percentile } from "./support.js"

const admin = (base: string, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(base) }))
    ) as Effect.Effect<unknown, unknown, never>
  )

/**
 * Row 13: `runners` `aeon serve` processes of one cluster (a database of their own on the local PostgreSQL), `runs`
 * runs submitted round-robin `inFlight` at a time, each followed over WebSocket from the next server (never its
 * own, mostly not its runner: events cross servers through the store and pg_notify). The model answers each
 * reasoning step in `stepMs`. Runs/s: runs over the time from the first submission to the last RunFinished;
 * delivery: an event's arrival at its follower minus its `at`.
 */
export const cluster = async (runners: number, runs: number, inFlight = 32, stepMs = 100) => {
  const base = process.env.AEON_BENCH_DATABASE_URL ??
    ((await reachable(5432)) ? "postgres://postgres@127.0.0.1:5432/test" : undefined)
  if (!base) return { skipped: "no PostgreSQL" }
  const database = `bench_cluster_${Date.now().toString(36)}`
  await admin(base, `CREATE DATABASE ${database}`)
  const url = new URL(base)
  url.pathname = `/${database}`
  const script = slowArithmeticScript(mkdtempSync(join(tmpdir(), "aeon-bench-cluster-")), stepMs)
  const started = await Promise.all(Array.from({ length: runners }, async () => {
    const p = startProcess({
      AEON_CLUSTER: "1",
      AEON_DATABASE_URL: url.toString(),
      AEON_PORT: "0",
      AEON_RUNNER_PORT: String(await freePort()),
      AEON_MODEL_PROVIDER: "scripted",
      AEON_SCRIPT: script,
      AEON_MAX_CONCURRENT_RUNS: "64"
    })
    return { child: p.child, url: await p.url }
  }))
  try {
    await new Promise((r) => setTimeout(r, 3_000)) // every runner has its shards
    const latencies: Array<number> = []
    let failures = 0
    let gaps = 0
    const one = async (i: number) => {
      const at = started[i % runners]!.url
      const res = await fetch(at, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query:
            `mutation { runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL }) { id } }`
        })
      })
      const id = ((await res.json()) as any).data?.runTask?.id as string | undefined
      if (!id) return void failures++
      const from = started[(i + 1) % runners]!.url
      const client = createWsClient({ url: from.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
      let expected = 1
      for await (
        const r of client.iterate<{ runEvents: { seq: number; at: string } }>({
          query: `subscription($id: ID!) { runEvents(runId: $id) { seq at } }`,
          variables: { id }
        })
      ) {
        const e = r.data!.runEvents
        latencies.push(Date.now() - Date.parse(e.at))
        if (e.seq !== expected++) gaps++
      }
      await client.dispose()
    }
    const t0 = Date.now()
    let next = 0
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next < runs) await one(next++).catch(() => void failures++)
    }))
    const seconds = (Date.now() - t0) / 1000
    return {
      runners,
      runs,
      inFlight,
      stepMs,
      runsPerSecond: runs / seconds,
      deliveryP50: percentile(latencies, 50),
      deliveryP99: percentile(latencies, 99),
      deliveries: latencies.length,
      failures,
      gaps
    }
  } finally {
    for (const s of started) s.child.kill("SIGKILL")
    await admin(base, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined)
  }
}
