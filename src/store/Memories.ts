import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Config, Context, Duration, Effect, Layer, Option, Ref, Schedule, Schema } from "effect"
import type { Memory, MemoryKind, RecalledMemory } from "../domain/Memory.js"
import { Plan } from "../domain/Plan.js"
import { type ReusablePlan, startingPlan } from "../memory/PlanReuse.js"
import { coverage, indexedTerms, similarTasks, taskKey, termsOf } from "../memory/Relevance.js"
import { MEMORY_TEXT_LIMIT } from "../record/RunMemories.js"
import { RunStore } from "./RunStore.js"
import { isoTime, json, parse, type StoreError, storeError } from "./StoreValues.js"

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
}

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
/** A term held by more than this share of the memories is left out of a search (SQLite; see `informative`). */
const COMMON_SHARE = 0.02
/** A search looks for at most this many of the query's terms, the rarest (the recall rule weighs them all). */
const RAREST = 3
/**
 * The most matches a search ranks (SQLite): the newest ones of its rarest terms. Ranking every match of a term a few
 * percent of 100,000 memories hold took 17–77 ms; the newest thousand, 1–2 ms (bench row 43).
 */
const CANDIDATES = 1_000

const cut = (text: string) => (text.length > MEMORY_TEXT_LIMIT ? `${text.slice(0, MEMORY_TEXT_LIMIT - 1)}…` : text)
const offsetOf = (cursor: string | undefined) => {
  const n = cursor === undefined ? 0 : Number.parseInt(cursor, 10)
  return Number.isFinite(n) && n > 0 ? n : 0
}
const decodePlan = Schema.decodeUnknownOption(Plan)

interface Row {
  readonly id: string
  readonly kind: MemoryKind
  readonly text: string
  readonly task: string
  readonly run_id: string | null
  readonly step_id: string | null
  readonly pass_number: number | null
  readonly tags: unknown
  readonly created_at: unknown
}
const toMemory = (r: Row): Memory => ({
  id: r.id,
  kind: r.kind,
  text: r.text,
  task: r.task,
  runId: r.run_id,
  stepId: r.step_id,
  passNumber: r.pass_number === null ? null : Number(r.pass_number),
  tags: (parse(r.tags) as ReadonlyArray<string> | null) ?? [],
  createdAt: r.created_at instanceof Date ? r.created_at.toISOString() : String(r.created_at)
})

/** Candidates ranked by the search, kept when they cover enough of the query: the recall rule of every store. */
const recalled = (query: string, ranked: ReadonlyArray<Memory>, options: RecallOptions = {}) => {
  const min = options.minCoverage ?? DEFAULT_COVERAGE
  return ranked.flatMap((m, i): Array<RecalledMemory> => {
    const share = coverage(query, `${m.text} ${m.task}`)
    return share >= min
      ? [{
        id: m.id,
        kind: m.kind,
        text: m.text,
        task: m.task,
        runId: m.runId,
        stepId: m.stepId,
        passNumber: m.passNumber,
        coverage: Math.round(share * 100) / 100,
        rank: i + 1
      }]
      : []
  }).slice(0, options.limit ?? 5)
}

/** The first candidate run whose plan can start a run now. */
const firstReusable = (
  candidates: ReadonlyArray<{ readonly runId: string; readonly task: string; readonly result: unknown }>,
  match: ReusablePlan["match"],
  tools: ReadonlyArray<string>
): Option.Option<ReusablePlan> => {
  for (const c of candidates) {
    const plan = Option.flatMap(
      decodePlan((parse(c.result) as { plan?: unknown } | null)?.plan),
      (p) => Option.fromNullable(startingPlan(p, match, tools))
    )
    if (Option.isSome(plan)) return Option.some({ runId: c.runId, task: c.task, plan: plan.value, match })
  }
  return Option.none()
}

const COLUMNS = "m.id, m.kind, m.text, m.task, m.run_id, m.step_id, m.pass_number, m.tags, m.created_at"

/** The service over the run store's database (SQLite's FTS5 or PostgreSQL's tsvector: Migrations' 0010). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const time = (ms: number) => isPg ? sql`${isoTime(ms)}::timestamptz` : sql`${isoTime(ms)}`

  /**
   * The query's terms worth searching for (SQLite): the RAREST of those held by at most COMMON_SHARE of the memories
   * (fts5vocab counts them) — a common term tells memories apart little, and ranking every memory it matches is what
   * a search costs (bench row 43) —; when every term is that common, the rarest. A memory is then found by a rare
   * term of the query, and judged, as everywhere, on its coverage of all of them.
   */
  const informative = (terms: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const counts = yield* sql<{ term: string; doc: number }>`SELECT term, doc FROM memories_terms
        WHERE ${sql.in("term", terms)}`
      const [{ n } = { n: 0 }] = yield* sql<{ n: number | null }>`SELECT max(n) AS n FROM memories`
      const docs = new Map(counts.map((c) => [c.term, Number(c.doc)]))
      const held = terms.filter((t) => docs.has(t)).sort((a, b) => docs.get(a)! - docs.get(b)!)
      const rare = held.filter((t) => docs.get(t)! <= Math.max(20, COMMON_SHARE * Number(n ?? 0)))
      return rare.length > 0 ? rare.slice(0, RAREST) : held.slice(0, 1)
    })

  /** The owner's memories matching any of the query's terms, best ranked first (`kind`: of that kind only). */
  const search = (owner: string, query: string, limit: number, offset = 0, kind?: MemoryKind) =>
    Effect.gen(function*() {
      const terms = termsOf(query).slice(0, 16)
      if (terms.length === 0) return []
      const kindIs = kind ? sql`AND m.kind = ${kind}` : sql``
      if (isPg) {
        const rows = yield* sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM memories m,
            to_tsquery('simple', ${terms.join(" | ")}) q
          WHERE m.owner = ${owner} AND m.search @@ q ${kindIs}
          ORDER BY ts_rank(m.search, q) DESC, m.created_at DESC LIMIT ${limit} OFFSET ${offset}`
        return rows.map(toMemory)
      }
      const searched = yield* informative(terms)
      if (searched.length === 0) return []
      // the newest CANDIDATES matches (FTS5 stops there), ranked by bm25 (evaluated for those only); CROSS JOIN keeps
      // SQLite from walking the owner's memories by their index instead (17 ms against 5 at 100,000: bench row 43)
      const rows = yield* sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM (SELECT rowid, bm25(memories_fts) AS score
          FROM memories_fts WHERE memories_fts MATCH ${searched.map((t) => `"${t}"`).join(" OR ")}
          ORDER BY rowid DESC LIMIT ${CANDIDATES}) f
        CROSS JOIN memories m ON m.n = f.rowid WHERE m.owner = ${owner} ${kindIs}
        ORDER BY f.score, m.n DESC LIMIT ${limit} OFFSET ${offset}`
      return rows.map(toMemory)
    })

  const insert = (owner: string, m: NewMemory, id: string, at: number) =>
    sql`INSERT INTO memories (id, owner, kind, text, task, task_key, terms, run_id, step_id, pass_number, tags,
        created_at)
      VALUES (${id}, ${owner}, 'noted', ${cut(m.text)}, ${m.task}, ${taskKey(m.task)}, ${
      indexedTerms(cut(m.text), m.task)
    },
        ${m.runId ?? null}, ${m.stepId ?? null}, ${m.passNumber ?? null},
        ${isPg ? sql`${json(m.tags ?? [])}::json` : json(m.tags ?? [])}, ${time(at)})`

  const service: Service = {
    remember: (owner, m) =>
      Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        const id = `note-${crypto.randomUUID()}`
        yield* insert(owner, m, id, at)
        return {
          id,
          kind: "noted" as const,
          text: cut(m.text),
          task: m.task,
          runId: m.runId ?? null,
          stepId: m.stepId ?? null,
          passNumber: m.passNumber ?? null,
          tags: [...(m.tags ?? [])],
          createdAt: isoTime(at)
        }
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
          memories: ms.slice(0, first).map((m) =>
            query ? { ...m, coverage: coverage(query, `${m.text} ${m.task}`) } : m
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
      Effect.gen(function*() {
        const equal = yield* sql<{ run_id: string; task: string; result: unknown }>`SELECT m.run_id, m.task, r.result
          FROM memories m JOIN runs r ON r.id = m.run_id
          WHERE m.owner = ${owner} AND m.kind = 'answer' AND m.task_key = ${taskKey(task)} AND r.status = 'CONVERGED'
          ORDER BY m.created_at DESC LIMIT 3`
        const fromEqual = firstReusable(
          equal.map((r) => ({ runId: r.run_id, task: r.task, result: r.result })),
          "equal",
          tools
        )
        if (Option.isSome(fromEqual)) return fromEqual
        const threshold = options?.similarity ?? DEFAULT_SIMILARITY
        const similar = (yield* search(owner, task, 10, 0, "answer")).filter((m) =>
          m.runId !== null && similarTasks(task, m.task, threshold)
        )
        if (similar.length === 0) return Option.none()
        const runs = yield* sql<{ id: string; result: unknown }>`SELECT id, result FROM runs
          WHERE status = 'CONVERGED' AND ${sql.in("id", similar.map((m) => m.runId!))}`
        const byId = new Map(runs.map((r) => [r.id, r.result]))
        return firstReusable(
          similar.flatMap((m) =>
            byId.has(m.runId!) ? [{ runId: m.runId!, task: m.task, result: byId.get(m.runId!) }] : []
          ),
          "similar",
          tools
        )
      }).pipe(Effect.mapError(storeError("finding a plan to reuse"))),
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
      yield* memories.purgeOlderThan(days).pipe(
        Effect.tap((n) => (n > 0 ? Effect.logInfo(`deleted ${n} memories older than ${days} days`) : Effect.void)),
        Effect.catchAll((e) => Effect.logWarning(`old memories could not be deleted: ${e.message}`)),
        Effect.repeat(Schedule.spaced(Duration.hours(1))),
        Effect.forkScoped
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
          const at = yield* Clock.currentTimeMillis
          const memory: Memory = {
            id: `note-${crypto.randomUUID()}`,
            kind: "noted",
            text: cut(m.text),
            task: m.task,
            runId: m.runId ?? null,
            stepId: m.stepId ?? null,
            passNumber: m.passNumber ?? null,
            tags: [...(m.tags ?? [])],
            createdAt: isoTime(at)
          }
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
