import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { indexedTerms } from "../src/memory/Relevance.js"
import * as Database from "../src/store/Database.js"
import { Memories } from "../src/store/Memories.js"
import { now } from "./support.js"

/**
 * Recall at scale (#44): `sizes` memories of one user (and as many again of others) in the store, then `queries`
 * recalls of five words each; p50 and p99 in ms. The floor, measured in the same run: a memory read by its primary
 * key (one indexed row), so the figure is a ratio on a noisy machine too. The texts are drawn from a vocabulary of
 * 5,000 made-up words with a Zipf-like spread (a few words in many memories, most in few), written apart from the
 * recall rule.
 */
const VOCABULARY = Array.from({ length: 5_000 }, (_, i) => `w${i.toString(36)}x${(i * 7919 % 997).toString(36)}`)
const zipf = (random: () => number) => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 3)]!
const seeded = (seed: number) => () => ((seed = (seed * 48271) % 2147483647) / 2147483647)
const sentence = (random: () => number, words: number) => Array.from({ length: words }, () => zipf(random)).join(" ")

const percentile = (xs: Array<number>, p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

const fill = (count: number, random: () => number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    const at = new Date().toISOString()
    for (let done = 0; done < count; done += 500) {
      const rows = Array.from({ length: Math.min(500, count - done) }, (_, i) => {
        const n = done + i
        const text = sentence(random, 30)
        const task = sentence(random, 8)
        return {
          id: `m${n}`,
          owner: n % 2 === 0 ? "bench" : `other${n % 50}`,
          kind: "answer",
          text,
          task,
          task_key: `t${n}`,
          terms: indexedTerms(text, task),
          run_id: null,
          step_id: null,
          pass_number: null,
          tags: "[]",
          created_at: at
        }
      })
      yield* sql`INSERT INTO memories ${sql.insert(rows)}`.pipe(
        isPg ? sql.withTransaction : (e) => e
      )
    }
  })

const measure = (url: string | undefined, size: number, queries: number) =>
  Effect.gen(function*() {
    const memories = yield* Memories
    const sql = yield* SqlClient.SqlClient
    const random = seeded(size)
    yield* fill(size * 2, random)
    const recall: Array<number> = []
    const floor: Array<number> = []
    let recalled = 0
    for (let i = 0; i < queries + 50; i++) {
      const query = sentence(random, 5)
      let t = now()
      const found = yield* memories.recall("bench", query)
      const recallMs = now() - t
      t = now()
      yield* sql`SELECT id, text FROM memories WHERE id = ${`m${(i * 2) % (size * 2)}`}`
      const floorMs = now() - t
      if (i < 50) continue // warm-up
      recall.push(recallMs)
      floor.push(floorMs)
      recalled += found.length
    }
    return {
      store: url ? "postgres" : "sqlite",
      memories: size,
      p50: percentile(recall, 0.5),
      p99: percentile(recall, 0.99),
      floorP50: percentile(floor, 0.5),
      floorP99: percentile(floor, 0.99),
      recalledPerQuery: recalled / queries
    }
  })

/** One statement on the PostgreSQL at `url` (the bench's schema made and dropped). */
const onDatabase = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(Database.clientLayer({ url: Redacted.make(url), dataDir: "memory" })),
      Effect.scoped,
      Effect.orDie
    )
  )

/** Both stores (PostgreSQL when AEON_BENCH_DATABASE_URL names a database the bench may fill), each size afresh. */
export const memoryRecall = async (sizes: ReadonlyArray<number>, queries: number) => {
  const results = []
  const pgBase = process.env.AEON_BENCH_DATABASE_URL
  for (const size of sizes) {
    for (const url of [undefined, ...(pgBase ? [pgBase] : [])]) {
      const dir = mkdtempSync(join(tmpdir(), "aeon-recall-"))
      const schema = `bench_recall_${Date.now().toString(36)}`
      const target = url ? new URL(url) : undefined
      target?.searchParams.set("options", `-c search_path=${schema}`)
      if (url) await onDatabase(url, `CREATE SCHEMA ${schema}`)
      const runtime = ManagedRuntime.make(
        Database.layer({ ...(target ? { url: Redacted.make(target.toString()) } : {}), dataDir: dir }).pipe(Layer.orDie)
      )
      try {
        results.push(await runtime.runPromise(measure(url, size, queries)))
      } finally {
        await runtime.dispose()
        rmSync(dir, { recursive: true, force: true })
        if (url) await onDatabase(url, `DROP SCHEMA ${schema} CASCADE`)
      }
    }
  }
  return results
}
