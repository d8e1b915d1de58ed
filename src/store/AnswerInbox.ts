import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { announcement, isoTime, json, noticesChannel, parse, type StoreError, storeError } from "./StoreValues.js"

/** How long a hold lasts unless renewed: a process that dies lets its runs go within it. */
export const LEASE_MS = 15_000

/** What became of a posted answer: recorded on the run's log, or refused with the run manager's coded error. */
export type AnswerOutcome = { readonly ok: true } | {
  readonly ok: false
  readonly code: string
  readonly message: string
}

export interface PostedAnswer {
  readonly id: string
  readonly runId: string
  readonly answer: unknown
}

/**
 * Who executes a run, and the answers given for it elsewhere. A process holds the runs it executes (a lease it
 * renews); an answer given in another process (the CLI, while a server runs the run) is posted here, and the holder
 * takes it and records it on the run's log through its own run manager — the one writer of that log. A run no process
 * holds (stopped, or its holder died) is answered on its stored log directly, as before.
 */
export interface Service {
  /**
   * Whether other processes share this store (PostgreSQL). The embedded database is one process's (its data
   * directory is locked): nobody else can answer there, so nothing is held and nothing posted.
   */
  readonly shared: boolean
  /** Holds these runs for `holder` until `until` (ms since the epoch): taken, or renewed. */
  readonly hold: (runIds: ReadonlyArray<string>, holder: string, until: number) => Effect.Effect<void, StoreError>
  /** Lets these runs go (those `holder` holds). */
  readonly release: (runIds: ReadonlyArray<string>, holder: string) => Effect.Effect<void, StoreError>
  /** The process holding the run at `now`, if one does. */
  readonly holderOf: (runId: string, now: number) => Effect.Effect<Option.Option<string>, StoreError>
  /** Posts an answer for a run (announced on PostgreSQL): its id. */
  readonly post: (runId: string, answer: unknown) => Effect.Effect<string, StoreError>
  /** Answers posted for these runs and not taken yet, oldest first. */
  readonly pending: (runIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<PostedAnswer>, StoreError>
  /** Takes a posted answer for `by`: false when another took it first (or its poster took it back). */
  readonly take: (id: string, by: string) => Effect.Effect<boolean, StoreError>
  /** What became of a taken answer. */
  readonly settle: (id: string, outcome: AnswerOutcome) => Effect.Effect<void, StoreError>
  /** A posted answer's outcome, once settled. */
  readonly outcome: (id: string) => Effect.Effect<Option.Option<AnswerOutcome>, StoreError>
}

export class AnswerInbox extends Context.Tag("aeon/AnswerInbox")<AnswerInbox, Service>() {}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const failing = (what: string) => Effect.mapError(storeError(what))
  return AnswerInbox.of({
    shared: isPg,
    hold: (runIds, holder, until) =>
      runIds.length === 0 || !isPg ? Effect.void : sql`UPDATE runs SET holder = ${holder}, held_until = ${until}
        WHERE ${sql.in("id", runIds)}`.pipe(Effect.asVoid, failing("holding runs")),
    release: (runIds, holder) =>
      runIds.length === 0 || !isPg ? Effect.void : sql`UPDATE runs SET holder = NULL, held_until = NULL
        WHERE ${sql.in("id", runIds)} AND holder = ${holder}`.pipe(Effect.asVoid, failing("letting runs go")),
    holderOf: (runId, now) =>
      sql<{ holder: string | null }>`SELECT holder FROM runs WHERE id = ${runId} AND held_until > ${now}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.holder)),
        failing(`reading who holds run ${runId}`)
      ),
    post: (runId, answer) =>
      Effect.gen(function*() {
        const id = randomUUID()
        const value = isPg ? sql`${json(answer)}::jsonb` : sql`${json(answer)}`
        const at = isPg ? sql`${isoTime(Date.now())}::timestamptz` : sql`${isoTime(Date.now())}`
        yield* sql`INSERT INTO run_answers (id, run_id, answer, created_at) VALUES (${id}, ${runId}, ${value}, ${at})`
        if (isPg) yield* sql`SELECT pg_notify(${noticesChannel}, ${announcement("answers", id)})`
        return id
      }).pipe(failing(`posting an answer for run ${runId}`)),
    pending: (runIds) =>
      runIds.length === 0 ? Effect.succeed([]) : sql<{ id: string; run_id: string; answer: unknown }>`
        SELECT id, run_id, answer FROM run_answers WHERE taken_by IS NULL AND ${sql.in("run_id", runIds)}
        ORDER BY created_at`.pipe(
        Effect.map((rows) => rows.map((r) => ({ id: r.id, runId: r.run_id, answer: parse(r.answer) }))),
        failing("reading posted answers")
      ),
    take: (id, by) =>
      sql<{ id: string }>`UPDATE run_answers SET taken_by = ${by} WHERE id = ${id} AND taken_by IS NULL RETURNING id`
        .pipe(Effect.map((rows) => rows.length > 0), failing(`taking answer ${id}`)),
    settle: (id, outcome) =>
      sql`UPDATE run_answers SET outcome = ${isPg ? sql`${json(outcome)}::jsonb` : sql`${json(outcome)}`}
        WHERE id = ${id}`.pipe(Effect.asVoid, failing(`settling answer ${id}`)),
    outcome: (id) =>
      sql<{ outcome: unknown }>`SELECT outcome FROM run_answers WHERE id = ${id} AND outcome IS NOT NULL`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => parse(r.outcome) as AnswerOutcome)),
        failing(`reading answer ${id}`)
      )
  })
})

/** The inbox over the store's SQL client (both dialects). */
export const layer = Layer.effect(AnswerInbox, make)
