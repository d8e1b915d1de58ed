import { createClient } from "graphql-sse"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve } from "../src/launch/App.js"
import * as Database from "../src/store/Database.js"
import { engine, loopScript } from "./support.js"

const gc = () => {
  const collect = (globalThis as { gc?: () => void }).gc
  if (!collect) throw new Error("run with --expose-gc (npm run bench does)")
  for (let i = 0; i < 3; i++) collect()
}
const heapMb = () => process.memoryUsage().heapUsed / 2 ** 20

const post = async (url: string, query: string) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query })
  })
  return (await res.json()) as { data?: { runTask?: { id: string } } }
}

/**
 * What a server keeps once its runs and their followers are gone: the live heap after a forced GC, before and after
 * `runs` runs, `followers` of them followed to their end over SSE by clients in this process (closed afterwards), at
 * most `concurrent` at once. SQLite on disk. A heap that grows with the runs is memory a long-lived server never gets
 * back (#43's row).
 */
export const retention = async (runs = 1_000, followers = 300, concurrent = 50) => {
  const dir = mkdtempSync(join(tmpdir(), "aeon-retention-"))
  const app = await serve({ port: 0, host: "127.0.0.1", maxConcurrentRuns: 64 }, {
    engine: engine(() => loopScript(2, 1, 2)),
    database: Database.layer({ dataDir: dir })
  })
  const url = app.url
  const client = createClient({ url, headers: { "x-graphql-yoga-csrf": "1" } })
  const task = `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`
  const one = async (i: number) => {
    const id = (await post(url, task)).data?.runTask?.id
    if (!id) throw new Error("a run was refused")
    if (i % Math.ceil(runs / followers) !== 0) return
    for await (
      const _ of client.iterate({ query: `subscription { runEvents(runId: "${id}", fromSeq: 0) { seq } }` })
    ) { /* followed to its end */ }
  }
  try {
    // a first batch, not counted: the JIT, the caches and the pools a server keeps are in place before "before"
    await Promise.all(Array.from({ length: concurrent }, (_, i) => one(i)))
    await new Promise((r) => setTimeout(r, 500))
    gc()
    if (process.env.AEON_HEAP_SNAPSHOTS) (await import("node:v8")).writeHeapSnapshot("/tmp/before.heapsnapshot")
    const before = heapMb()
    let next = 0
    await Promise.all(Array.from({ length: concurrent }, async () => {
      for (let i = next++; i < runs; i = next++) await one(i)
    }))
    // every run finished: its fibers, scopes and followers are done
    await new Promise((r) => setTimeout(r, 1_000))
    gc()
    if (process.env.AEON_HEAP_SNAPSHOTS) (await import("node:v8")).writeHeapSnapshot("/tmp/after.heapsnapshot")
    const after = heapMb()
    return { runs, followers, before, after, ratio: after / before, rssMb: process.memoryUsage().rss / 2 ** 20 }
  } finally {
    client.dispose()
    await app.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
