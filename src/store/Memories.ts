import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Config, Context, Duration, Effect, Layer, Option, Ref } from "effect"
import type { Memory, RecalledMemory } from "../domain/Memory.js"
import type { ReusablePlan } from "../memory/PlanReuse.js"
import { coverage, coverageOf, indexedTerms, taskKey } from "../memory/Relevance.js"
import { cutText, modelTag } from "../record/RunMemories.js"
import { inBackground } from "../support/Background.js"
import { COLUMNS, type Found, reusablePlanOf, type Row, searcher, toMemory } from "./MemorySearch.js"
import { RunStore } from "./RunStore.js"
import { isoTime, json, type StoreError, storeError } from "./StoreValues.js"

/** A note to keep: what the `memory.remember` tool and the library's `remember` write. */
export interface NewMemory {
  readonly text: string
  readonly task: string
  readonly tags?: ReadonlyArray<string> | undefined
  readonly runId?: string | undefined
  readonly stepId?: string | undefined
  readonly passNumber?: number | undefined
}

export interface RecallOptions {
  /** At most this many memories (default 5). */
  readonly limit?: number | undefined
  /** The share of the query's content words a memory must hold (default DEFAULT_COVERAGE). */
  readonly minCoverage?: number | undefined
  /**
   * The model of the run recalling: a memory the offline stand-in left (its restated step results) is recalled only
   * into the stand-in's own runs, never into another model's prompt.
   */
  readonly model?: string | undefined
}

const OFFLINE = modelTag("offline")

export interface MemoryPage {
  readonly memories: ReadonlyArray<Memory & { readonly coverage?: number | undefined }>
  readonly endCursor: string | null
  readonly hasNextPage: boolean
}

/**
 * Memory across runs, each user's own (`owner`: the user id, "" for runs without one). A converged run's memories
 * are written by the store with its RunFinished (store/EventLog): this service reads them, keeps the model's notes,
 * forgets, and finds the plan a repeated task may start from.
 */
export interface Service {
  readonly remember: (owner: string, memory: NewMemory) => Effect.Effect<Memory, StoreError>
  /** The owner's memories most relevant to `query`, best first (full-text search, then the coverage threshold). */
  readonly recall: (
    owner: string,
    query: string,
    options?: RecallOptions
  ) => Effect.Effect<ReadonlyArray<RecalledMemory>, StoreError>
  /** Newest first, or (with a query) as the search ranks them; `after`: the cursor of the page before. */
  readonly list: (
    owner: string,
    options: { readonly query?: string | undefined; readonly first: number; readonly after?: string | undefined }
  ) => Effect.Effect<MemoryPage, StoreError>
  /** Whether the owner had that memory (it is gone, with its full-text entry). */
  readonly forget: (owner: string, id: string) => Effect.Effect<boolean, StoreError>
  /** Every memory of the owner, gone: how many there were. */
  readonly forgetAll: (owner: string) => Effect.Effect<number, StoreError>
  /** The final plan of the owner's latest converged run of this task (or a similar one) that can start a run now. */
  readonly reusablePlan: (
    owner: string,
    task: string,
    availableTools: ReadonlyArray<string>,
    options?: { readonly similarity?: number | undefined }
  ) => Effect.Effect<Option.Option<ReusablePlan>, StoreError>
  /** Memories older than `days` days, gone (none when `days` is 0): how many. */
  readonly purgeOlderThan: (days: number) => Effect.Effect<number, StoreError>
}

export class Memories extends Context.Tag("aeon/Memories")<Memories, Service>() {}

/** A task similar to an earlier one when they share this share of their words (Relevance.similarTasks). */
export const DEFAULT_SIMILARITY = 0.8
/** A memory is recalled when it holds this share of the query's content words. */
export const DEFAULT_COVERAGE = 0.4
const DAY_MS = 86_400_000
/** A note as it is kept (`memory.remember`, `remember`): its id made, its text cut, at `at`. */
export const noteOf = (m: NewMemory, at: number): Memory => ({
  id: `note-${crypto.randomUUID()}`,
  kind: "noted",
  text: cutText(m.text),
  task: m.task,
  runId: m.runId ?? null,
  stepId: m.stepId ?? null,
  passNumber: m.passNumber ?? null,
  tags: [...(m.tags ?? [])],
  createdAt: isoTime(at)
})
const offsetOf = (cursor: string | undefined) => {
  const n = cursor === undefined ? 0 : Number.parseInt(cursor, 10)
  return Number.isFinite(n) && n > 0 ? n : 0
}

/** Candidates ranked by the search, kept when they cover enough of the query: the recall rule of every store. */
const recalled = (query: string, ranked: ReadonlyArray<Found>, options: RecallOptions = {}) => {
  const min = options.minCoverage ?? DEFAULT_COVERAGE
  const kept = options.model === undefined || options.model === "offline"
    ? ranked
    : ranked.filter((m) => !m.tags.includes(OFFLINE))
  return kept.flatMap(({ createdAt: _, tags: __, terms, ...source }, i): Array<RecalledMemory> => {
    const share = terms ? coverageOf(query, terms) : coverage(query, `${source.text} ${source.task}`)
    return share >= min ? [{ ...source, coverage: Math.round(share * 100) / 100, rank: i + 1 }] : []
  }).slice(0, options.limit ?? 5)
}

/** The service over the run store's database (SQLite's FTS5 or PostgreSQL's tsvector: Migrations' 0010). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const time = (ms: number) => isPg ? sql`${isoTime(ms)}::timestamptz` : sql`${isoTime(ms)}`

  const search = yield* searcher(sql)

  const insert = (owner: string, m: Memory, at: number) =>
    sql`INSERT INTO memories (id, owner, kind, text, task, task_key, terms, run_id, step_id, pass_number, tags,
        created_at)
      VALUES (${m.id}, ${owner}, 'noted', ${m.text}, ${m.task}, ${taskKey(m.task)}, ${indexedTerms(m.text, m.task)},
        ${m.runId}, ${m.stepId}, ${m.passNumber}, ${isPg ? sql`${json(m.tags)}::json` : json(m.tags)}, ${time(at)})`

  const service: Service = {
    remember: (owner, m) =>
      Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        const note = noteOf(m, at)
        yield* insert(owner, note, at)
        return note
      }).pipe(Effect.mapError(storeError("keeping a memory"))),
    recall: (owner, query, options) =>
      search(owner, query, Math.max(20, (options?.limit ?? 5) * 4)).pipe(
        Effect.map((ranked) => recalled(query, ranked, options)),
        Effect.mapError(storeError("recalling memories"))
      ),
    list: (owner, { after, first, query }) => {
      const offset = offsetOf(after)
      const rows = query !== undefined && query.trim() !== ""
        ? search(owner, query, first + 1, offset)
        : Effect.map(
          sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM memories m WHERE m.owner = ${owner}
            ORDER BY m.created_at DESC, m.id DESC LIMIT ${first + 1} OFFSET ${offset}`,
          (rs) => rs.map(toMemory)
        )
      return rows.pipe(
        Effect.map((ms) => ({
          memories: ms.slice(0, first).map(({ terms, ...m }: Found) =>
            query ? { ...m, coverage: terms ? coverageOf(query, terms) : coverage(query, `${m.text} ${m.task}`) } : m
          ),
          endCursor: ms.length > 0 ? String(offset + Math.min(first, ms.length)) : null,
          hasNextPage: ms.length > first
        })),
        Effect.mapError(storeError("listing memories"))
      )
    },
    forget: (owner, id) =>
      sql`DELETE FROM memories WHERE owner = ${owner} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(storeError("forgetting a memory"))
      ),
    forgetAll: (owner) =>
      sql`DELETE FROM memories WHERE owner = ${owner} RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        Effect.mapError(storeError("forgetting memories"))
      ),
    reusablePlan: (owner, task, tools, options) =>
      reusablePlanOf(sql, search, owner, task, tools, options?.similarity ?? DEFAULT_SIMILARITY).pipe(
        Effect.mapError(storeError("finding a plan to reuse"))
      ),
    purgeOlderThan: (days) =>
      days <= 0 ?
        Effect.succeed(0) :
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          sql`DELETE FROM memories WHERE created_at < ${time(now - days * DAY_MS)} RETURNING id`.pipe(
            Effect.map((rows) =>
              rows.length
            ),
            Effect.mapError(storeError("deleting old memories"))
          ))
  }
  return service
})

/** AEON_MEMORY: `off` turns memory across runs off for every run (recall, plan reuse, remembering). */
export const memoryEnabledConfig = Config.literal("on", "off")("AEON_MEMORY").pipe(
  Config.withDescription("on: runs recall their user's earlier runs and are remembered when they converge; off: never"),
  Config.withDefault("on" as const),
  Config.map((v) => v === "on"),
  Effect.orDie
)

export const retentionConfig = Config.integer("AEON_MEMORY_RETENTION_DAYS").pipe(
  Config.withDescription("Memories older than this many days are deleted (0: kept until forgotten)"),
  Config.validate({ message: "AEON_MEMORY_RETENTION_DAYS must be 0 or more", validation: (n) => n >= 0 }),
  Config.withDefault(0)
)

/** The service over the store's SQL client. */
export const layer = Layer.effect(Memories, make)

/**
 * The service, and its retention (AEON_MEMORY_RETENTION_DAYS) applied at start and every hour while it lives. It is
 * made once the run store is (its migrations made the tables).
 */
export const layerConfig = Layer.scoped(
  Memories,
  Effect.gen(function*() {
    yield* RunStore
    const memories = yield* make
    const days = yield* retentionConfig
    if (days > 0) {
      yield* inBackground(
        "the memories' retention",
        Duration.hours(1),
        memories.purgeOlderThan(days).pipe(
          Effect.tap((n) => (n > 0 ? Effect.logInfo(`deleted ${n} memories older than ${days} days`) : Effect.void))
        )
      )
    }
    return memories
  })
)

/**
 * In memory, for tests and a library without a store: the same recall rule over a plain word match (no ranking
 * beyond recency). Runs do not write into it (a run's memories are written by its store); `remember` does.
 */
export const layerTest = Layer.effect(
  Memories,
  Effect.gen(function*() {
    const all = yield* Ref.make<ReadonlyArray<Memory & { readonly owner: string }>>([])
    const mine = (owner: string) => Effect.map(Ref.get(all), (ms) => ms.filter((m) => m.owner === owner).reverse())
    const matching = (owner: string, query: string) =>
      Effect.map(mine(owner), (ms) => ms.filter((m) => coverage(query, `${m.text} ${m.task}`) > 0))
    const service: Service = {
      remember: (owner, m) =>
        Effect.gen(function*() {
          const memory = noteOf(m, yield* Clock.currentTimeMillis)
          yield* Ref.update(all, (ms) => [...ms, { ...memory, owner }])
          return memory
        }),
      recall: (owner, query, options) => Effect.map(matching(owner, query), (ms) => recalled(query, ms, options)),
      list: (owner, { after, first, query }) =>
        Effect.map(query ? matching(owner, query) : mine(owner), (ms) => {
          const offset = offsetOf(after)
          const page = ms.slice(offset, offset + first)
          return {
            memories: page,
            endCursor: page.length > 0 ? String(offset + page.length) : null,
            hasNextPage: ms.length > offset + first
          }
        }),
      forget: (owner, id) =>
        Ref.modify(all, (ms) => {
          const left = ms.filter((m) => !(m.owner === owner && m.id === id))
          return [left.length < ms.length, left]
        }),
      forgetAll: (owner) =>
        Ref.modify(all, (ms) => {
          const left = ms.filter((m) => m.owner !== owner)
          return [ms.length - left.length, left]
        }),
      reusablePlan: () => Effect.succeed(Option.none()),
      purgeOlderThan: (days) =>
        days <= 0 ? Effect.succeed(0) : Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Ref.modify(all, (ms) => {
            const cutoff = isoTime(now - days * DAY_MS)
            const left = ms.filter((m) => m.createdAt >= cutoff)
            return [ms.length - left.length, left]
          }))
    }
    return service
  })
)
