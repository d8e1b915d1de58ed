import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import { RunNotFoundError, RunRecordDamagedError } from "../domain/Errors.js"
import type { ExecutionHistory } from "../domain/Execution.js"
import type { AgentSession, ReasoningTrace } from "../domain/Records.js"
import { RunEvent } from "../domain/RunEvent.js"
import { foldHistory } from "../kernel/History.js"
import { EventSink, type EventSinkService } from "../kernel/RunEvents.js"
import { emptyRecord, foldEvents } from "../run/RunRecord.js"
import { resultOf, type RunStatus } from "../run/RunResult.js"
import { executionMetadata, prioritizedPlan } from "./SessionRecords.js"

/** The database failed: a typed error at the edge, never a silently lost event. */
/**
 * The database refused or failed an operation. What a client sees names the operation only; the database's own
 * text (SQL, constraint names) stays in `detail`, for the server's log.
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  operation: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `the store failed while ${this.operation}`
  }
}
/** A client-chosen run id that a run already has. */
export class RunIdTakenError extends Schema.TaggedError<RunIdTakenError>()("RunIdTakenError", {
  runId: Schema.String
}) {
  override get message() {
    return `runId ${this.runId} is already taken: choose another, or leave runId out for a generated one`
  }
}
/** The user already has a running run (one running session per user). */
export class UserBusyError extends Schema.TaggedError<UserBusyError>()("UserBusyError", { userId: Schema.String }) {
  override get message() {
    return `user ${this.userId} already has a running run; one running session per user`
  }
}

/** A run's owner epoch, as a runner of a cluster took it up. */
export interface Fence {
  readonly epoch: number
}

/** Another runner has taken the run up since this one did: its writes are refused and it stops. */
export class RunFencedError extends Schema.TaggedError<RunFencedError>()("RunFencedError", {
  runId: Schema.String,
  epoch: Schema.Number
}) {
  override get message() {
    return `run ${this.runId} was taken up by another runner (this one held epoch ${this.epoch})`
  }
}

/** Where a fenced append announces new events: `pg_notify` at commit, with `runId:lastSeq`. */
export const eventsChannel = "aeon_run_events"

export interface StoredRun {
  readonly id: string
  readonly userId: string | null
  readonly task: string
  readonly mode: string
  readonly status: RunStatus
  readonly input: unknown
  readonly result: unknown
  readonly usage: unknown
  readonly createdAt: Date
  readonly updatedAt: Date
  /** On a cluster: the runner that took the run up last. */
  readonly runner: string | null
}

export interface RunPage {
  readonly runs: ReadonlyArray<StoredRun>
  readonly endCursor: string | null
  readonly hasNextPage: boolean
}

export interface Service {
  /** Refuses a user with a running run unless allowBusyUser (the server then queues the run behind it). */
  readonly createRun: (
    run: {
      id: string
      userId?: string | undefined
      task: string
      mode: string
      input: unknown
      status: "QUEUED" | "RUNNING"
      allowBusyUser?: boolean
    }
  ) => Effect.Effect<void, StoreError | UserBusyError | RunIdTakenError>
  readonly setStatus: (id: string, status: RunStatus) => Effect.Effect<void, StoreError>
  /**
   * Appends events in order, all or none; RunStarted opens the session, RunFinished writes result, session,
   * trace — from `log` (the run's whole log, ending with that RunFinished) when given, else read back.
   */
  readonly append: (
    events: ReadonlyArray<RunEvent>,
    log?: ReadonlyArray<RunEvent>,
    fence?: Fence
  ) => Effect.Effect<void, StoreError | RunFencedError>
  /**
   * Takes a run up on a runner of a cluster: raises its owner epoch and answers the new one. Appends fenced with an
   * older epoch are refused from then on (RunFencedError).
   */
  readonly claim: (id: string, runner: string) => Effect.Effect<Fence, StoreError | RunNotFoundError>
  /**
   * Takes the user's turn for a run, across a cluster (one running session per user): granted when no other run of the
   * user holds it, or the one holding it has ended (a finished run's turn is free: never given back otherwise); the run
   * holding it gets it again (resumed on another runner).
   */
  readonly takeTurn: (userId: string, runId: string) => Effect.Effect<boolean, StoreError>
  readonly getRun: (id: string) => Effect.Effect<Option.Option<StoredRun>, StoreError>
  /** The run's events in order; a stored event that no longer decodes fails the read with RunRecordDamagedError. */
  readonly events: (
    id: string,
    fromSeq?: number
  ) => Effect.Effect<ReadonlyArray<RunEvent>, StoreError | RunRecordDamagedError>
  readonly history: (id: string) => Effect.Effect<ExecutionHistory, StoreError | RunRecordDamagedError>
  readonly listRuns: (
    q: {
      userId?: string | undefined
      status?: RunStatus | undefined
      first?: number | undefined
      after?: string | undefined
    }
  ) => Effect.Effect<RunPage, StoreError>
  /** Runs a process left RUNNING or QUEUED: resumed at start-up. */
  readonly unfinished: Effect.Effect<ReadonlyArray<StoredRun>, StoreError>
  readonly session: (runId: string) => Effect.Effect<Option.Option<AgentSession>, StoreError>
  readonly trace: (runId: string) => Effect.Effect<Option.Option<ReasoningTrace>, StoreError>
  readonly setRetentionDays: (days: number) => Effect.Effect<void, StoreError>
}

export class RunStore extends Context.Tag("aeon/RunStore")<RunStore, Service>() {}

const decodeEvent = Schema.decodeUnknownEither(RunEvent)
/** The first thing wrong with a stored event, in one line (the whole union's decode message is pages long). */
const firstIssue = (e: ParseResult.ParseError) => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(e)
  return issue ? `${issue.path.join(".") || "(event)"}: ${issue.message}`.slice(0, 300) : "does not decode"
}
/** A stored event with its recorded call put back (absent once the retention window deleted it). */
const withCall = (payload: unknown, call: unknown) => {
  if (call === null || call === undefined || payload === null || typeof payload !== "object") return payload
  const parsed = parseSafely(call)
  return parsed === undefined ? payload : { ...payload, call: parsed }
}
/** A payload that is not JSON decodes as nothing (and fails the event's decode), instead of throwing. */
const parseSafely = (v: unknown) => {
  try {
    return parse(v)
  } catch {
    return undefined
  }
}
const storeError = (operation: string) => (e: SqlError) =>
  new StoreError({
    operation,
    detail: `${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ""}`
  })
const json = (v: unknown) => JSON.stringify(v ?? null)
const parse = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v)

const toRun = (r: any): StoredRun => ({
  id: r.id,
  userId: r.user_id,
  task: r.task,
  mode: r.mode,
  status: r.status,
  input: parse(r.input),
  result: parse(r.result),
  usage: parse(r.usage),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  runner: r.runner ?? null
})

/** The opaque cursor of a run in a list: its creation time (milliseconds, as stored) and id, exact on both stores. */
export const cursorOf = (r: StoredRun) => Buffer.from(`${r.createdAt.toISOString()}|${r.id}`).toString("base64url")
const fromCursor = (c: string) => {
  const [at, id] = Buffer.from(c, "base64url").toString().split("|")
  return at && id && !Number.isNaN(Date.parse(at)) ? { at: new Date(at).toISOString(), id } : undefined
}

/** Whether a client's `after` is a cursor this store gave (a forged one is refused, not read as "from the start"). */
export const isCursor = (c: string) => fromCursor(c) !== undefined

export const sessionUser = (runId: string, userId: string | null | undefined) => userId ?? `anonymous:${runId}`

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  /** A JSON value: jsonb on PostgreSQL, JSON text on SQLite. */
  const jsonValue = (v: unknown) =>
    sql.onDialectOrElse({ pg: () => sql`${json(v)}::jsonb`, orElse: () => sql`${json(v)}` })
  /** A timestamp written by the application (ISO-8601, milliseconds): timestamptz on PostgreSQL, text on SQLite. */
  const time = (ms: number) => {
    const at = new Date(ms).toISOString()
    return sql.onDialectOrElse({ pg: () => sql`${at}::timestamptz`, orElse: () => sql`${at}` })
  }

  const loadEvents = (id: string, fromSeq = 0) =>
    sql<{ seq: number; payload: unknown; call: unknown }>`SELECT e.seq, e.payload, c.call FROM run_events e
      LEFT JOIN llm_calls c ON c.run_id = e.run_id AND c.seq = e.seq
      WHERE e.run_id = ${id} AND e.seq >= ${fromSeq} ORDER BY e.seq`.pipe(
      Effect.mapError(storeError(`reading events of run ${id}`)),
      Effect.flatMap((rows) =>
        Effect.forEach(rows, (r) =>
          Either.match(decodeEvent(withCall(parseSafely(r.payload), r.call)), {
            onLeft: (e) =>
              Effect.fail(new RunRecordDamagedError({ runId: id, seq: Number(r.seq), detail: firstIssue(e) })),
            onRight: (event) => Effect.succeed(event)
          }))
      )
    )

  /**
   * An event as written (json, not jsonb, on PostgreSQL: key order is kept; see migration 0004). A model call's
   * recorded prompt and answer go to llm_calls beside it (deleted with the traces, past the retention window).
   */
  const eventPayload = (event: RunEvent) => {
    const text = json(event._tag === "LlmCalled" && event.call !== undefined ? { ...event, call: undefined } : event)
    return sql.onDialectOrElse({ pg: () => sql`${text}::json`, orElse: () => sql`${text}` })
  }
  /** The recorded calls of a batch, as one INSERT (none when nothing was recorded). */
  const insertCalls = (events: ReadonlyArray<RunEvent>) => {
    const calls = events.filter((e): e is Extract<RunEvent, { _tag: "LlmCalled" }> =>
      e._tag === "LlmCalled" && e.call !== undefined
    )
    if (calls.length === 0) return undefined
    const value = (e: (typeof calls)[number]) =>
      sql.onDialectOrElse({ pg: () => sql`${json(e.call)}::json`, orElse: () => sql`${json(e.call)}` })
    // stored now (as traces are): the retention window counts from when it was written, not from the run's clock
    const now = time(Date.now())
    return sql`INSERT INTO llm_calls (run_id, seq, call, created_at) VALUES ${
      sql.csv(calls.map((e) => sql`(${e.runId}, ${e.seq}, ${value(e)}, ${now})`))
    } ON CONFLICT (run_id, seq) DO NOTHING`
  }
  const row = (event: RunEvent) =>
    sql`(${event.runId}, ${event.seq}, ${event._tag}, ${eventPayload(event)}, ${time(event.at)})`
  const insertEvents = (events: ReadonlyArray<RunEvent>) =>
    sql`INSERT INTO run_events (run_id, seq, type, payload, at) VALUES ${sql.csv(events.map(row))}`

  /** RunStarted: the run is RUNNING and its session opens (for its user, or `anonymous:<run id>`). */
  const startRecords = (event: Extract<RunEvent, { _tag: "RunStarted" }>) => {
    const now = time(Date.now())
    return [
      sql`UPDATE runs SET status = 'RUNNING', updated_at = ${now} WHERE id = ${event.runId}`,
      sql`INSERT INTO agent_sessions (id, user_id, run_id, status, execution_metadata, created_at, updated_at)
        SELECT ${`session-${event.runId}`}, COALESCE(user_id, ${sessionUser(event.runId, null)}), id, 'running',
          ${jsonValue(executionMetadata(emptyRecord()))}, ${now}, ${now}
        FROM runs WHERE id = ${event.runId} ON CONFLICT (run_id) DO NOTHING`
    ]
  }

  /** RunFinished: the run's result and usage, its session closed with plan and metadata, its trace — from the run's log. */
  const finishRecords = (event: Extract<RunEvent, { _tag: "RunFinished" }>, events: ReadonlyArray<RunEvent>) => {
    const record = foldEvents(events)
    const result = resultOf(record)
    const trace = record.trace
    const metadata = executionMetadata(record)
    const plan = result.plan
      ? prioritizedPlan(result.plan, result.finalAnswer?.answerText ?? event.terminationReason)
      : null
    const completed = (event.status === "CONVERGED" || event.status === "NOT_CONVERGED") && plan !== null
    const { history: _history, ...summary } = result
    const now = time(Date.now())
    return [
      sql`UPDATE runs SET status = ${event.status}, result = ${jsonValue(summary)}, usage = ${
        jsonValue(event.usage)
      }, updated_at = ${now}
        WHERE id = ${event.runId}`,
      sql`UPDATE agent_sessions SET status = ${completed ? "completed" : "failed"}, prioritized_plan = ${
        completed ? jsonValue(plan) : null
      },
        execution_metadata = ${jsonValue(metadata)}, updated_at = ${now} WHERE run_id = ${event.runId}`,
      sql`INSERT INTO reasoning_traces (id, session_id, steps, total_steps, created_at)
        SELECT ${`trace-${event.runId}`}, id, ${
        jsonValue(trace)
      }, ${trace.length}, ${now} FROM agent_sessions WHERE run_id = ${event.runId}
        ON CONFLICT (id) DO UPDATE SET steps = excluded.steps, total_steps = excluded.total_steps`
    ]
  }

  /**
   * Appends events in order, all or none: a batch of plain events is one multi-row INSERT (a group commit); a
   * batch holding RunStarted or RunFinished is one transaction with the records they open or close. (One
   * statement of data-modifying CTEs would save PostgreSQL two round trips per run, but SQLite has none.)
   */
  /**
   * A fenced append's guard, first in its transaction: the run's row is locked while the epoch is checked (a claim
   * waits for the append, or the append sees the claim), then the other servers are told at commit.
   */
  const fenced = (events: ReadonlyArray<RunEvent>, fence: Fence) => {
    const runId = events[0]!.runId
    return Effect.gen(function*() {
      const held =
        yield* sql`UPDATE runs SET owner_epoch = owner_epoch WHERE id = ${runId} AND owner_epoch = ${fence.epoch}
        RETURNING id`
      if (held.length === 0) return yield* new RunFencedError({ runId, epoch: fence.epoch })
      yield* sql.onDialectOrElse({
        pg: () => sql`SELECT pg_notify(${eventsChannel}, ${`${runId}:${events[events.length - 1]!.seq}`})`,
        orElse: () => Effect.void
      })
    })
  }

  const append: Service["append"] = (events, log, fence) => {
    if (events.length === 0) return Effect.void
    const started = events.find((e): e is Extract<RunEvent, { _tag: "RunStarted" }> => e._tag === "RunStarted")
    const finished = events.find((e): e is Extract<RunEvent, { _tag: "RunFinished" }> => e._tag === "RunFinished")
    const write = Effect.gen(function*() {
      const calls = insertCalls(events)
      if (!started && !finished && !calls && !fence) return yield* insertEvents(events)
      // RunFinished's records come from the whole log: the caller's, or what is stored plus this batch
      const whole = !finished ? [] : log && log[log.length - 1] === finished ?
        log
        : [...(yield* loadEvents(finished.runId)).filter((e) => e.seq < events[0]!.seq), ...events]
      const statements = [
        ...(fence ? [fenced(events, fence)] : []),
        insertEvents(events),
        ...(calls ? [calls] : []),
        ...(started ? startRecords(started) : []),
        ...(finished ? finishRecords(finished, whole) : [])
      ]
      return yield* Effect.forEach(statements, (s) => s, { discard: true }).pipe(sql.withTransaction)
    })
    const range = events.length === 1
      ? `event ${events[0]!.seq}`
      : `events ${events[0]!.seq}–${events[events.length - 1]!.seq}`
    return write.pipe(
      Effect.asVoid,
      Effect.mapError((e) =>
        e._tag === "SqlError" ?
          storeError(`appending ${range} of run ${events[0]!.runId}`)(e)
          : e._tag === "RunFencedError" ?
          e
          : e._tag === "RunRecordDamagedError" ?
          new StoreError({ operation: `appending ${range} of run ${events[0]!.runId}`, detail: e.message })
          : e
      )
    )
  }

  const service: Service = {
    createRun: (run) =>
      Effect.gen(function*() {
        if (run.userId && !run.allowBusyUser) {
          const busy =
            yield* sql`SELECT 1 FROM agent_sessions WHERE user_id = ${run.userId} AND status = 'running' LIMIT 1`
          if (busy.length > 0) return yield* new UserBusyError({ userId: run.userId })
        }
        const taken = () => sql`SELECT 1 FROM runs WHERE id = ${run.id}`.pipe(Effect.map((rows) => rows.length > 0))
        if (yield* taken()) return yield* new RunIdTakenError({ runId: run.id })
        const now = time(Date.now())
        yield* sql`INSERT INTO runs (id, user_id, task, mode, status, input, created_at, updated_at)
          VALUES (${run.id}, ${run.userId ?? null}, ${run.task}, ${run.mode}, ${run.status}, ${
          jsonValue(run.input)
        }, ${now}, ${now})`.pipe(
          // another request took the id between the check and the insert
          Effect.catchTag("SqlError", (e) =>
            Effect.flatMap(
              taken(),
              (t): Effect.Effect<never, RunIdTakenError | SqlError> =>
                t ? Effect.fail(new RunIdTakenError({ runId: run.id })) : Effect.fail(e)
            ))
        )
      }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(storeError(`creating run ${run.id}`)(e)))),
    setStatus: (id, status) =>
      sql`UPDATE runs SET status = ${status}, updated_at = ${time(Date.now())} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError(`updating run ${id}`))
      ),
    append,
    claim: (id, runner) =>
      sql<{ owner_epoch: number }>`UPDATE runs SET owner_epoch = owner_epoch + 1, runner = ${runner} WHERE id = ${id}
        RETURNING owner_epoch`
        .pipe(
          Effect.mapError(storeError(`taking up run ${id}`)),
          Effect.flatMap((rows) =>
            rows[0] ?
              Effect.succeed({ epoch: Number(rows[0].owner_epoch) }) :
              Effect.fail(new RunNotFoundError({ runId: id }))
          )
        ),
    takeTurn: (userId, runId) =>
      sql`INSERT INTO user_turns (user_id, run_id) VALUES (${userId}, ${runId})
        ON CONFLICT (user_id) DO UPDATE SET run_id = excluded.run_id
        WHERE user_turns.run_id = excluded.run_id
          OR NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = user_turns.run_id AND runs.status IN ('QUEUED', 'RUNNING'))
        RETURNING run_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(storeError(`taking the turn of user ${userId}`))
      ),
    getRun: (id) =>
      sql`SELECT * FROM runs WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(toRun))),
        Effect.mapError(storeError(`reading run ${id}`))
      ),
    events: loadEvents,
    history: (id) => loadEvents(id).pipe(Effect.map((events) => foldHistory(events))),
    listRuns: ({ userId, status, first = 20, after }) =>
      Effect.gen(function*() {
        const limit = Math.max(1, Math.min(100, first))
        const cursor = after ? fromCursor(after) : undefined
        const conditions = [
          ...(userId ? [sql`user_id = ${userId}`] : []),
          ...(status ? [sql`status = ${status}`] : []),
          ...(cursor ? [sql`(created_at, id) < (${time(Date.parse(cursor.at))}, ${cursor.id})`] : [])
        ]
        const rows = yield* sql`SELECT * FROM runs ${
          conditions.length > 0 ? sql`WHERE ${sql.and(conditions)}` : sql``
        } ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`
        const runs = rows.slice(0, limit).map(toRun)
        return {
          runs,
          endCursor: runs.length > 0 ? cursorOf(runs[runs.length - 1]!) : null,
          hasNextPage: rows.length > limit
        }
      }).pipe(Effect.mapError(storeError("listing runs"))),
    unfinished: sql`SELECT * FROM runs WHERE status IN ('RUNNING', 'QUEUED') ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map(toRun)),
      Effect.mapError(storeError("listing unfinished runs"))
    ),
    session: (runId) =>
      sql<any>`SELECT * FROM agent_sessions WHERE run_id = ${runId}`.pipe(
        Effect.map((rows) =>
          Option.fromNullable(rows[0]).pipe(Option.map((r): AgentSession => ({
            id: r.id,
            userId: r.user_id,
            runId: r.run_id,
            status: r.status,
            prioritizedPlan: parse(r.prioritized_plan) ?? null,
            executionMetadata: parse(r.execution_metadata),
            createdAt: new Date(r.created_at).toISOString(),
            updatedAt: new Date(r.updated_at).toISOString()
          })))
        ),
        Effect.mapError(storeError(`reading the session of run ${runId}`))
      ),
    trace: (runId) =>
      sql<
        any
      >`SELECT t.* FROM reasoning_traces t JOIN agent_sessions s ON s.id = t.session_id WHERE s.run_id = ${runId}`.pipe(
        Effect.map((rows) =>
          Option.fromNullable(rows[0]).pipe(Option.map((r): ReasoningTrace => ({
            id: r.id,
            sessionId: r.session_id,
            steps: parse(r.steps),
            totalSteps: r.total_steps,
            createdAt: new Date(r.created_at).toISOString()
          })))
        ),
        Effect.mapError(storeError(`reading the trace of run ${runId}`))
      ),
    setRetentionDays: (days) =>
      sql`UPDATE aeon_settings SET value = ${String(days)} WHERE key = 'retention_days'`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError("setting the retention window"))
      )
  }
  return service
})

export const layer = Layer.effect(RunStore, make)

/**
 * Events are persisted before they are published; a database failure stops the run loudly. `fence`: a run a runner
 * of a cluster took up — once another runner has taken it up, its appends are refused and it stops.
 */
export const sinkOf = (store: Service, fence?: Fence): EventSinkService => ({
  append: (events, log) =>
    store.append(events, log, fence).pipe(
      Effect.orDieWith((e) =>
        e._tag === "RunFencedError"
          ? e
          : new Error(`events of run ${events[0]?.runId} could not be stored: ${e.detail}`)
      )
    )
})

export const sinkLayer = Layer.effect(EventSink, Effect.map(RunStore, (store) => sinkOf(store)))
