import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Option } from "effect"
import { type RunRecordDamagedError, StoreUnavailableError, type ThreadBusyError } from "../domain/Errors.js"
import type { ExecutionHistory } from "../domain/Execution.js"
import type { AgentSession, ReasoningTrace } from "../domain/Records.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { EventSink, type EventSinkService } from "../journal/RunJournal.js"
import { foldHistory } from "../record/History.js"
import type { RunFigures } from "../record/RunFigures.js"
import type { RunRecord } from "../record/RunRecord.js"
import type { RunStatus } from "../record/RunResult.js"
import { makeEventLog } from "./EventLog.js"
import { SqliteWriter } from "./SqliteWriter.js"
import {
  type Fence,
  parse,
  type RunFencedError,
  RunIdTakenError,
  type RunPage,
  sqlValues,
  type StoredRun,
  StoreError,
  storeError,
  UserBusyError
} from "./StoreValues.js"
import { joinThread } from "./Threads.js"

export { sessionUser } from "./EventLog.js"
export {
  type Fence,
  RunFencedError,
  RunIdTakenError,
  type RunPage,
  type StoredRun,
  StoreError,
  UserBusyError
} from "./StoreValues.js"

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
      /**
       * The thread the run is the next turn of (store/Threads), made when new. While a turn is under way: refused
       * (REJECT), or numbered after it (QUEUE: `after` names it).
       */
      thread?: { readonly owner: string; readonly id: string; readonly whileBusy?: "REJECT" | "QUEUE" } | undefined
      /** The agent it is a run of, and the run that called that agent as a tool. */
      agent?: string | undefined
      parentRunId?: string | undefined
      /** The schedule whose tick started it (store/Schedules). */
      scheduleId?: string | undefined
      /** Where its events are told (store/Outbox): the URL, and the events. */
      webhook?: { readonly url: string; readonly events: ReadonlyArray<string> } | undefined
    }
  ) => Effect.Effect<
    { readonly after?: string | undefined },
    StoreError | UserBusyError | RunIdTakenError | ThreadBusyError
  >
  readonly setStatus: (id: string, status: RunStatus) => Effect.Effect<void, StoreError>
  /**
   * Removes a run that never started (no event stored): on a cluster, a run whose Start could not be sent is
   * forgotten, so that the client's "try again" with the same runId is not refused as taken.
   */
  readonly forgetUnstarted: (id: string) => Effect.Effect<void, StoreError>
  /**
   * Appends events in order, all or none; RunStarted opens the session, RunFinished writes result, session,
   * trace — from `log` (the run's whole log, ending with that RunFinished) when given, else read back; from
   * `record` when given with it (the fold of `log`: the run's own record, not folded again).
   */
  readonly append: (
    events: ReadonlyArray<RunEvent>,
    log?: ReadonlyArray<RunEvent>,
    fence?: Fence,
    record?: RunRecord
  ) => Effect.Effect<void, StoreError | RunFencedError>
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
      agent?: string | undefined
      /** The runs a run called as tools (its children), oldest first. */
      parentRunId?: string | undefined
      /** The runs a schedule's ticks started. */
      scheduleId?: string | undefined
      first?: number | undefined
      after?: string | undefined
    }
  ) => Effect.Effect<RunPage, StoreError>
  /** The figures of the last `limit` finished runs that have them, newest first (the forecast's calibration). */
  readonly recentFigures: (limit: number) => Effect.Effect<ReadonlyArray<RunFigures>, StoreError>
  /** Runs a process left RUNNING or QUEUED: resumed at start-up. */
  readonly unfinished: Effect.Effect<ReadonlyArray<StoredRun>, StoreError>
  /** On a cluster: runs QUEUED since before `before` that no runner has taken up (their Start may never have gone). */
  readonly queuedUnowned: (before: number) => Effect.Effect<ReadonlyArray<string>, StoreError>
  readonly session: (runId: string) => Effect.Effect<Option.Option<AgentSession>, StoreError>
  readonly trace: (runId: string) => Effect.Effect<Option.Option<ReasoningTrace>, StoreError>
  readonly setRetentionDays: (days: number) => Effect.Effect<void, StoreError>
}

export class RunStore extends Context.Tag("aeon/RunStore")<RunStore, Service>() {}

const toRun = (r: any): StoredRun => ({
  id: r.id,
  userId: r.user_id,
  task: r.task,
  mode: r.mode,
  status: r.status === "RUNNING" && Number(r.awaiting_input) === 1 ? "AWAITING_INPUT" : r.status,
  input: parse(r.input),
  result: parse(r.result),
  usage: parse(r.usage),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  runner: r.runner ?? null,
  agent: r.agent ?? null,
  parentRunId: r.parent_run_id ?? null
})

/** The opaque cursor of a run in a list: its creation time (milliseconds, as stored) and id, exact on both stores. */
export const cursorOf = (r: StoredRun) => Buffer.from(`${r.createdAt.toISOString()}|${r.id}`).toString("base64url")
const fromCursor = (c: string) => {
  const [at, id] = Buffer.from(c, "base64url").toString().split("|")
  return at && id && !Number.isNaN(Date.parse(at)) ? { at: new Date(at).toISOString(), id } : undefined
}

/** Whether a client's `after` is a cursor this store gave (a forged one is refused, not read as "from the start"). */
export const isCursor = (c: string) => fromCursor(c) !== undefined

/** An agent_sessions row as its record. */
const sessionOfRow = (r: any): AgentSession => ({
  id: r.id,
  userId: r.user_id,
  runId: r.run_id,
  status: r.status,
  prioritizedPlan: parse(r.prioritized_plan) ?? null,
  executionMetadata: parse(r.execution_metadata),
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString()
})

/** A reasoning_traces row as its record. */
const traceOfRow = (r: any): ReasoningTrace => ({
  id: r.id,
  sessionId: r.session_id,
  steps: parse(r.steps),
  totalSteps: r.total_steps,
  createdAt: new Date(r.created_at).toISOString()
})

/** A new run's row: refused when its user has a run going on (unless it may queue) or its id is taken. */
const createRunWith = (sql: SqlClient.SqlClient): Service["createRun"] => {
  const { jsonValue, time } = sqlValues(sql)
  return (run) =>
    Effect.gen(function*() {
      if (run.userId && !run.allowBusyUser) {
        const busy =
          yield* sql`SELECT 1 FROM agent_sessions WHERE user_id = ${run.userId} AND status = 'running' LIMIT 1`
        if (busy.length > 0) return yield* new UserBusyError({ userId: run.userId })
      }
      const taken = () => sql`SELECT 1 FROM runs WHERE id = ${run.id}`.pipe(Effect.map((rows) => rows.length > 0))
      if (yield* taken()) return yield* new RunIdTakenError({ runId: run.id })
      const thread = run.thread
      const turn = thread ? yield* joinThread(sql, thread.owner, thread.id, run.id, thread.whileBusy) : undefined
      const now = time(Date.now())
      yield* sql`INSERT INTO runs (id, user_id, task, mode, status, input, created_at, updated_at, agent, parent_run_id,
          webhook_url, webhook_events, schedule_id)
        VALUES (${run.id}, ${run.userId ?? null}, ${run.task}, ${run.mode}, ${run.status}, ${
        jsonValue(run.input)
      }, ${now}, ${now}, ${run.agent ?? null}, ${run.parentRunId ?? null}, ${run.webhook?.url ?? null}, ${
        run.webhook ? `,${run.webhook.events.join(",")},` : null
      }, ${run.scheduleId ?? null})`.pipe(
        // another request took the id between the check and the insert
        Effect.catchTag("SqlError", (e) =>
          Effect.flatMap(
            taken(),
            (t): Effect.Effect<never, RunIdTakenError | SqlError> =>
              t ? Effect.fail(new RunIdTakenError({ runId: run.id })) : Effect.fail(e)
          ))
      )
      if (turn) yield* turn.insert
      return { after: turn?.after }
    }).pipe(
      // a run joining a thread joins it whole or not at all (its thread made, its turn numbered)
      (create) => (run.thread ? sql.withTransaction(create) : create),
      Effect.catchTag("SqlError", (e) => Effect.fail(storeError(`creating run ${run.id}`)(e)))
    )
}

/** A page of runs, newest first, by user, status, agent or parent (a child run's), after a cursor. */
const listRunsWith = (sql: SqlClient.SqlClient): Service["listRuns"] => {
  const { time } = sqlValues(sql)
  return ({ agent, after, first = 20, parentRunId, scheduleId, status, userId }) =>
    Effect.gen(function*() {
      // a run waiting for a person is RUNNING with awaiting_input set; RUNNING lists those that are not waiting
      const statusIs = (s: RunStatus) =>
        s === "AWAITING_INPUT"
          ? sql`status = 'RUNNING' AND awaiting_input = 1`
          : s === "RUNNING"
          ? sql`status = 'RUNNING' AND awaiting_input = 0`
          : sql`status = ${s}`
      const limit = Math.max(1, Math.min(100, first))
      const cursor = after ? fromCursor(after) : undefined
      const conditions = [
        ...(userId ? [sql`user_id = ${userId}`] : []),
        ...(status ? [statusIs(status)] : []),
        ...(agent ? [sql`agent = ${agent}`] : []),
        ...(parentRunId ? [sql`parent_run_id = ${parentRunId}`] : []),
        ...(scheduleId ? [sql`schedule_id = ${scheduleId}`] : []),
        ...(cursor ? [sql`(created_at, id) < (${time(Date.parse(cursor.at))}, ${cursor.id})`] : [])
      ]
      const rows = yield* sql`SELECT * FROM runs ${
        conditions.length > 0 ? sql`WHERE ${sql.and(conditions)}` : sql``
      } ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`
      const runs = rows.slice(0, limit).map(toRun)
      return {
        runs,
        endCursor: ((last) => (last ? cursorOf(last) : null))(runs.at(-1)),
        hasNextPage: rows.length > limit
      }
    }).pipe(Effect.mapError(storeError("listing runs")))
}

/** A run's stored session and trace (store/SessionRecords: written as the run ends). */
const recordsWith = (sql: SqlClient.SqlClient): Pick<Service, "session" | "trace"> => ({
  session: (runId) =>
    sql<any>`SELECT * FROM agent_sessions WHERE run_id = ${runId}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(sessionOfRow))),
      Effect.mapError(storeError(`reading the session of run ${runId}`))
    ),
  trace: (runId) =>
    sql<
      any
    >`SELECT t.* FROM reasoning_traces t JOIN agent_sessions s ON s.id = t.session_id WHERE s.run_id = ${runId}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(traceOfRow))),
      Effect.mapError(storeError(`reading the trace of run ${runId}`))
    )
})

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { time } = sqlValues(sql)
  // on the embedded database, appends go through its direct writer
  const writer = Option.getOrUndefined(yield* Effect.serviceOption(SqliteWriter))
  const { append, loadEvents } = makeEventLog(sql, writer)

  const service: Service = {
    createRun: createRunWith(sql),
    setStatus: (id, status) =>
      sql`UPDATE runs SET status = ${status}, updated_at = ${time(Date.now())} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError(`updating run ${id}`))
      ),
    append,
    takeTurn: (userId, runId) =>
      sql`INSERT INTO user_turns (user_id, run_id) VALUES (${userId}, ${runId})
        ON CONFLICT (user_id) DO UPDATE SET run_id = excluded.run_id
        WHERE user_turns.run_id = excluded.run_id
          OR NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = user_turns.run_id AND runs.status IN ('QUEUED', 'RUNNING'))
        RETURNING run_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(storeError(`taking the turn of user ${userId}`))
      ),
    forgetUnstarted: (id) =>
      sql`DELETE FROM runs WHERE id = ${id} AND NOT EXISTS (SELECT 1 FROM run_events WHERE run_id = ${id})`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError(`forgetting run ${id}`))
      ),
    getRun: (id) =>
      sql`SELECT * FROM runs WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(toRun))),
        Effect.mapError(storeError(`reading run ${id}`))
      ),
    events: loadEvents,
    history: (id) => loadEvents(id).pipe(Effect.map((events) => foldHistory(events))),
    listRuns: listRunsWith(sql),
    recentFigures: (limit) =>
      sql<{ figures: unknown }>`SELECT figures FROM runs WHERE figures IS NOT NULL
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((r) => parse(r.figures) as RunFigures)),
        Effect.mapError(storeError("reading the figures of recent runs"))
      ),
    queuedUnowned: (before) =>
      sql<{ id: string }>`SELECT id FROM runs WHERE status = 'QUEUED' AND runner IS NULL AND created_at < ${
        time(before)
      } ORDER BY created_at, id LIMIT 100`.pipe(
        Effect.map((rows) => rows.map((r) => r.id)),
        Effect.mapError(storeError("listing queued runs no runner took up"))
      ),
    unfinished:
      sql`SELECT * FROM runs WHERE status IN ('RUNNING', 'QUEUED') AND parent_run_id IS NULL ORDER BY created_at, id`
        .pipe(
          Effect.map((rows) => rows.map(toRun)),
          Effect.mapError(storeError("listing unfinished runs"))
        ),
    ...recordsWith(sql),
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
 * Events are persisted before they are published. A failure that can pass (the disk full, the database away) is told
 * to the run's writer, which tries again; any other stops the run loudly. `fence`: a run a runner of a cluster took
 * up — once another runner has taken it up, its appends are refused and it stops.
 */
export const sinkOf = (store: Service, fence?: Fence): EventSinkService => ({
  append: (events, log, record) =>
    store.append(events, log, fence, record).pipe(
      Effect.catchAll((e) =>
        e._tag === "StoreError" && e.passes === true
          ? Effect.fail(new StoreUnavailableError({ cause: e.cause ?? "the store does not answer" }))
          : Effect.die(
            e._tag === "RunFencedError"
              ? e
              : new Error(`events of run ${events[0]?.runId} could not be stored: ${e.detail}`)
          )
      )
    )
})

export const sinkLayer = Layer.effect(EventSink, Effect.map(RunStore, (store) => sinkOf(store)))
