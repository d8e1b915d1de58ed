import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Redacted } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve } from "../src/launch/App.js"
import * as Database from "../src/store/Database.js"
import { reachable } from "../test/support/process.js"
import { engine, loopScript, percentile } from "./support.js"

/** PostgreSQL in a schema of its own when a server answers (AEON_BENCH_DATABASE_URL, else the local one); else SQLite on disk. */
const store = async () => {
  const base = process.env.AEON_BENCH_DATABASE_URL ??
    ((await reachable(5432)) ? "postgres://postgres@127.0.0.1:5432/test" : undefined)
  if (!base) {
    const dir = mkdtempSync(join(tmpdir(), "aeon-load-"))
    return {
      name: "SQLite",
      layer: Database.layer({ dataDir: dir }),
      drop: async () => rmSync(dir, { recursive: true })
    }
  }
  const schema = `bench_load_${Date.now().toString(36)}`
  const admin = (sql: string) =>
    Effect.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (c) => c.unsafe(sql)).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(base) })),
        Effect.scoped
      ) as Effect.Effect<unknown, unknown, never>
    )
  await admin(`CREATE SCHEMA ${schema}`)
  const url = new URL(base)
  url.searchParams.set("options", `-c search_path=${schema}`)
  return {
    name: "PostgreSQL",
    layer: Database.layer({ url: Redacted.make(url.toString()), dataDir: "unused" }),
    drop: () => admin(`DROP SCHEMA ${schema} CASCADE`)
  }
}

/**
 * The hardening issue's load shape, bounded and on loopback: runs submitted at `runsPerSecond` for `seconds`, each
 * run's model answering in `callMs`; `subscribers` clients (half SSE, half WebSocket, in another process) always
 * following the newest runs from seq 0; a health query every 100 ms from a third process. Delivery latency is an
 * event's arrival at a client minus its `at` (stamped when the run emits it); every subscriber checks its sequence is
 * gapless. The first `warmupSeconds` carry the load but are not measured (200 connections opening, a cold JIT).
 */
export const load = async (runsPerSecond = 20, subscribers = 200, seconds = 15, warmupSeconds = 2, callMs = 50) => {
  const db = await store()
  const app = await serve({ port: 0, host: "127.0.0.1", maxConcurrentRuns: 256 }, {
    engine: engine(() => loopScript(3, 1, callMs)),
    database: db.layer as Layer.Layer<any, any>
  })
  let peakRss = process.memoryUsage().rss
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200)
  try {
    type Report = {
      latencies: Array<number>
      health: Array<number>
      runs: number
      finished: number
      failures: Array<string>
      gaps: number
      followed: number
    }
    const clients = (role: "load" | "health") =>
      new Promise<Report>((resolve, reject) =>
        execFile(
          process.execPath,
          [
            "--import",
            "tsx",
            new URL("./LoadClients.ts", import.meta.url).pathname,
            role,
            app.url,
            String(runsPerSecond),
            String(subscribers),
            String(seconds),
            String(warmupSeconds)
          ],
          { maxBuffer: 256 << 20 },
          (e, stdout, stderr) => (e ? reject(new Error(stderr || e.message)) : resolve(JSON.parse(stdout)))
        )
      )
    const [r, h] = await Promise.all([clients("load"), clients("health")])
    return {
      store: db.name,
      runsPerSecond,
      subscribers,
      seconds,
      runs: r.runs,
      finished: r.finished,
      followed: r.followed,
      deliveries: r.latencies.length,
      deliveryP50: percentile(r.latencies, 50),
      deliveryP99: percentile(r.latencies, 99),
      healthP50: percentile(h.health, 50),
      healthP99: percentile(h.health, 99),
      healthMax: Math.max(...h.health),
      failures: r.failures.length + h.failures.length,
      firstFailures: [...r.failures, ...h.failures].slice(0, 5),
      gaps: r.gaps,
      peakRssMb: peakRss / 2 ** 20
    }
  } finally {
    clearInterval(sampler)
    await app.stop()
    await db.drop()
  }
}
