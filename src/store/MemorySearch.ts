import type * as SqlClient from "@effect/sql/SqlClient"
import { Cache, Duration, Effect, Option, Schema } from "effect"
import type { Memory, MemoryKind } from "../domain/Memory.js"
import { Plan } from "../domain/Plan.js"
import { type ReusablePlan, startingPlan } from "../memory/PlanReuse.js"
import { similarTasks, taskKey, termsOf } from "../memory/Relevance.js"
import { fieldOf } from "../support/Fields.js"
import { parse } from "./StoreValues.js"

/**
 * Finding a user's memories in the store: by the words of a query (SQLite's FTS5, PostgreSQL's tsvector), and the
 * converged plan a task may start from (store/Memories uses both).
 */

/** A term held by more than this share of the memories is left out of a search (SQLite; see `informative`). */
const COMMON_SHARE = 0.02
/** A term's count stops here: a term this common is common. */
const COUNTED = 5_000
/** A search looks for at most this many of the query's terms, the rarest (the recall rule weighs them all). */
const RAREST = 3
/**
 * The most matches a search ranks: the newest ones (of its rarest terms, on SQLite). Ranking every match of a term
 * a few percent of the memories hold grows with the store; the newest thousand do not (bench row 43).
 */
const CANDIDATES = 500

export interface Row {
  readonly id: string
  readonly kind: MemoryKind
  readonly text: string
  readonly task: string
  readonly run_id: string | null
  readonly step_id: string | null
  readonly pass_number: number | null
  readonly tags: unknown
  readonly created_at: unknown
  readonly terms?: string
}
/** A memory found by a search, with its terms as the store indexed them (what its coverage is counted on). */
export type Found = Memory & { readonly terms?: ReadonlyArray<string> | undefined }
export const toMemory = (r: Row): Found => ({
  ...(r.terms !== undefined ? { terms: r.terms.split(" ") } : {}),
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

export const COLUMNS = "m.id, m.kind, m.text, m.task, m.run_id, m.step_id, m.pass_number, m.tags, m.created_at"
/** A search's columns: the memory's, and its indexed terms. */
const FOUND = `${COLUMNS}, m.terms`

const decodePlan = Schema.decodeUnknownOption(Plan)

/** The first candidate run whose plan can start a run now. */
const firstReusable = (
  candidates: ReadonlyArray<{ readonly runId: string; readonly task: string; readonly result: unknown }>,
  match: ReusablePlan["match"],
  tools: ReadonlyArray<string>
): Option.Option<ReusablePlan> => {
  for (const c of candidates) {
    const plan = Option.flatMap(
      decodePlan(fieldOf(parse(c.result), "plan")),
      (p) => Option.fromNullable(startingPlan(p, match, tools))
    )
    if (Option.isSome(plan)) return Option.some({ runId: c.runId, task: c.task, plan: plan.value, match })
  }
  return Option.none()
}

/**
 * How many memories hold a term, as a search weighs it: a count that stops at COUNTED (a term that common is
 * common), cached a minute (a count only decides which terms are searched).
 */
const termCounts = (sql: SqlClient.SqlClient, isPg: boolean) =>
  Cache.make({
    capacity: 20_000,
    timeToLive: Duration.minutes(1),
    lookup: (term: string) =>
      (isPg
        ? sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT 1 FROM memories
            WHERE search @@ to_tsquery('simple', ${term}) LIMIT ${COUNTED}) x`
        : sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT rowid FROM memories_fts
            WHERE memories_fts MATCH ${`"${term}"`} LIMIT ${COUNTED}) x`).pipe(
          Effect.map((rows) => Number(rows[0]?.n ?? 0)),
          // unknown: weighed as common (searched only when every term is)
          Effect.orElseSucceed(() => Number.MAX_SAFE_INTEGER)
        )
  })

/** The owner's memories matching any of the query's terms, best ranked first: a search over `sql`. */
export const searcher = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    const counts = yield* termCounts(sql, isPg)
    /**
     * The query's terms worth searching for: the RAREST of those held by at most COMMON_SHARE of the memories — a common
     * term tells memories apart little, and ranking every memory it matches is what a search costs (bench row 43) —;
     * when every term is that common, the rarest. A term no memory held when it was counted is searched all the same
     * (a memory kept since is found). A memory is then found by a rare term of the query, and judged, as everywhere, on
     * its coverage of all of them.
     */
    const informative = (terms: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const docs = new Map(yield* Effect.forEach(terms, (t) => Effect.map(counts.get(t), (n) => [t, n] as const)))
        const size = yield* (isPg
          ? sql<{ n: number | null }>`SELECT reltuples AS n FROM pg_class WHERE oid = 'memories'::regclass`
          : sql<{ n: number | null }>`SELECT max(n) AS n FROM memories`)
        const unheld = terms.filter((t) => docs.get(t) === 0)
        const held = terms.filter((t) => docs.get(t)! > 0).sort((a, b) => docs.get(a)! - docs.get(b)!)
        const rare = held.filter((t) => docs.get(t)! <= Math.max(20, COMMON_SHARE * Number(size[0]?.n ?? 0)))
        return [...unheld, ...(rare.length > 0 ? rare.slice(0, RAREST) : held.slice(0, 1))]
      })

    /** The owner's memories matching any of the query's terms, best ranked first (`kind`: of that kind only). */
    const search = (owner: string, query: string, limit: number, offset = 0, kind?: MemoryKind) =>
      Effect.gen(function*() {
        const terms = termsOf(query).slice(0, 16)
        if (terms.length === 0) return []
        const kindIs = kind ? sql`AND m.kind = ${kind}` : sql``
        const searched = yield* informative(terms)
        if (isPg) {
          // the owner's newest CANDIDATES matches, ranked by ts_rank (which reads each row's vector: those only)
          const q = searched.join(" | ")
          const rows = yield* sql<Row>`SELECT ${sql.literal(FOUND)} FROM (SELECT * FROM memories m
            WHERE m.owner = ${owner} AND m.search @@ to_tsquery('simple', ${q}) ${kindIs}
            ORDER BY m.created_at DESC LIMIT ${CANDIDATES}) m
          ORDER BY ts_rank(m.search, to_tsquery('simple', ${q})) DESC, m.created_at DESC
          LIMIT ${limit} OFFSET ${offset}`
          return rows.map(toMemory)
        }
        // the newest CANDIDATES matches (FTS5 stops there), ranked by bm25 (evaluated for those only); CROSS JOIN keeps
        // SQLite from walking all of the owner's memories by their index instead (bench row 43)
        const rows = yield* sql<Row>`SELECT ${sql.literal(FOUND)} FROM (SELECT rowid, bm25(memories_fts) AS score
          FROM memories_fts WHERE memories_fts MATCH ${searched.map((t) => `"${t}"`).join(" OR ")}
          ORDER BY rowid DESC LIMIT ${CANDIDATES}) f
        CROSS JOIN memories m ON m.n = f.rowid WHERE m.owner = ${owner} ${kindIs}
        ORDER BY f.score, m.n DESC LIMIT ${limit} OFFSET ${offset}`
        return rows.map(toMemory)
      })
    return search
  })

type Search = Effect.Effect.Success<ReturnType<typeof searcher>>

/** The final plan of the owner's latest converged run of this task (or a similar one) that can start a run now. */
export const reusablePlanOf = (
  sql: SqlClient.SqlClient,
  search: Search,
  owner: string,
  task: string,
  tools: ReadonlyArray<string>,
  threshold: number
) =>
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
    const similar = (yield* search(owner, task, 10, 0, "answer")).filter((m) =>
      m.runId !== null && similarTasks(task, m.task, threshold)
    )
    if (similar.length === 0) return Option.none()
    const runs = yield* sql<{ id: string; result: unknown }>`SELECT id, result FROM runs
      WHERE status = 'CONVERGED' AND ${sql.in("id", similar.map((m) => m.runId!))}`
    const byId = new Map(runs.map((r) => [r.id, r.result]))
    return firstReusable(
      similar.flatMap((m) => byId.has(m.runId!) ? [{ runId: m.runId!, task: m.task, result: byId.get(m.runId!) }] : []),
      "similar",
      tools
    )
  })
