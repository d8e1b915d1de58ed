import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Array as Arr, Effect, Either, Option, ParseResult, Schema } from "effect"
import { RunRecordDamagedError } from "../domain/Errors.js"
import { RunEvent } from "../domain/RunEvent.js"
import { indexedTerms, taskKey } from "../memory/Relevance.js"
import { figuresOf } from "../record/RunFigures.js"
import { memoriesOf } from "../record/RunMemories.js"
import {
  asks,
  asksOrAnswers,
  awaitingInput,
  beginsRun,
  emptyRecord,
  endsRun,
  foldEvents,
  type RunRecord
} from "../record/RunRecord.js"
import { resultOf, type RunResult } from "../record/RunResult.js"
import { awaitingDelivery, finishedDelivery, startedDelivery } from "./Outbox.js"
import { executionMetadata, prioritizedPlan } from "./SessionRecords.js"
import type { SqliteWriter } from "./SqliteWriter.js"

/** A batch of a run's events to store: never empty. */
type Batch = Arr.NonEmptyReadonlyArray<RunEvent>
import {
  insertRows,
  isoOf,
  jsonb,
  jsonText,
  type Statement,
  statement,
  timeOf,
  toRaw,
  toSql,
  type Value
} from "./Statements.js"
import {
  announcement,
  type Fence,
  isoTime,
  json,
  noticesChannel,
  parse,
  RunFencedError,
  StoreError,
  storeError
} from "./StoreValues.js"

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
export const sessionUser = (runId: string, userId: string | null | undefined) => userId ?? `anonymous:${runId}`

/** An event's row in run_events: run id, seq, type, payload (JSON, its recorded call apart), time. */
const eventRow = (event: RunEvent): ReadonlyArray<Value> => [
  event.runId,
  event.seq,
  event._tag,
  // json, not jsonb, on PostgreSQL: key order is kept (see migration 0004)
  jsonText(json(event._tag === "LlmCalled" && event.call !== undefined ? { ...event, call: undefined } : event)),
  isoOf(isoTime(event.at))
]
type LlmCalled = Extract<RunEvent, { _tag: "LlmCalled" }>
/** The events of a batch whose model call was recorded: their prompt and answer go to llm_calls beside them. */
const recordedCalls = (events: ReadonlyArray<RunEvent>) =>
  events.filter((e): e is LlmCalled => e._tag === "LlmCalled" && e.call !== undefined)

/** A batch's rows: its events, and its recorded calls (written at `now`: the retention window counts from then). */
const insertsOf = (events: ReadonlyArray<RunEvent>, calls: ReadonlyArray<LlmCalled>): Array<Statement> => {
  if (calls.length === 0) {
    return insertRows("INSERT INTO run_events (run_id, seq, type, payload, at)", events.map(eventRow))
  }
  const now = timeOf(Date.now())
  return [
    ...insertRows("INSERT INTO run_events (run_id, seq, type, payload, at)", events.map(eventRow)),
    ...insertRows(
      "INSERT INTO llm_calls (run_id, seq, call, created_at)",
      calls.map((e) => [e.runId, e.seq, jsonText(json(e.call)), now]),
      " ON CONFLICT (run_id, seq) DO NOTHING"
    )
  ]
}

/** RunStarted: the run is RUNNING and its session opens (for its user, or `anonymous:<run id>`). */
const startRecords = (event: Extract<RunEvent, { _tag: "RunStarted" }>): Array<Statement> => {
  const now = timeOf(Date.now())
  return [
    statement`UPDATE runs SET status = 'RUNNING', updated_at = ${now} WHERE id = ${event.runId}`,
    statement`INSERT INTO agent_sessions (id, user_id, run_id, status, execution_metadata, created_at, updated_at)
      SELECT ${`session-${event.runId}`}, COALESCE(user_id, ${sessionUser(event.runId, null)}), id, 'running',
        ${jsonb(executionMetadata(emptyRecord()))}, ${now}, ${now}
      FROM runs WHERE id = ${event.runId} ON CONFLICT (run_id) DO NOTHING`
  ]
}

/** RunFinished: the run's result, usage and figures, its session closed with plan and metadata, its trace — from the run's record. */
const finishRecords = (event: Extract<RunEvent, { _tag: "RunFinished" }>, record: RunRecord): Array<Statement> => {
  const result = resultOf(record)
  const trace = record.trace
  const plan = result.plan
    ? prioritizedPlan(result.plan, result.finalAnswer?.answerText ?? event.terminationReason)
    : null
  const completed = (event.status === "CONVERGED" || event.status === "NOT_CONVERGED") && plan !== null
  const { history: _history, ...summary } = result
  const figures = figuresOf(record)
  const now = timeOf(Date.now())
  return [
    statement`UPDATE runs SET status = ${event.status}, result = ${jsonb(summary)}, usage = ${jsonb(event.usage)},
      figures = ${figures ? jsonb(figures) : null}, awaiting_input = 0, updated_at = ${now} WHERE id = ${event.runId}`,
    statement`UPDATE agent_sessions SET status = ${completed ? "completed" : "failed"},
      prioritized_plan = ${completed ? jsonb(plan) : null}, execution_metadata = ${jsonb(executionMetadata(record))},
      updated_at = ${now} WHERE run_id = ${event.runId}`,
    statement`INSERT INTO reasoning_traces (id, session_id, steps, total_steps, created_at)
      SELECT ${`trace-${event.runId}`}, id, ${jsonb(trace)}, ${trace.length}, ${now} FROM agent_sessions
      WHERE run_id = ${event.runId} ON CONFLICT (id) DO UPDATE SET steps = excluded.steps, total_steps = excluded.total_steps`,
    ...memoryRecords(record, result, now)
  ]
}

/**
 * A converged run's memories (record/RunMemories), owned by the run's user ('' for none): written in the transaction
 * that stores its RunFinished, so a run is never converged without them nor remembered without converging. What the
 * user already remembers for the same task (the same text: a repeated task's run) is not written twice.
 */
const memoryRecords = (record: RunRecord, result: RunResult, now: Value): Array<Statement> =>
  memoriesOf(record, result).map((m) => {
    const key = taskKey(m.task)
    return statement`INSERT INTO memories (id, owner, kind, text, task, task_key, terms, run_id, step_id, pass_number,
        tags, created_at)
      SELECT ${m.id}, COALESCE(r.user_id, ''), ${m.kind}, ${m.text}, ${m.task}, ${key}, ${
      indexedTerms(m.text, m.task)
    }, r.id, ${m.stepId},
        ${m.passNumber}, ${
      jsonText(JSON.stringify(m.tags))
    }, ${now} FROM runs r WHERE r.id = ${m.runId} AND NOT EXISTS (
          SELECT 1 FROM memories k WHERE k.owner = COALESCE(r.user_id, '') AND k.task_key = ${key}
            AND k.kind = ${m.kind} AND k.text = ${m.text})
      ON CONFLICT (id) DO NOTHING`
  })

/** A batch's events in words: "event 5", "events 5–9". */
const rangeOf = (events: Batch) =>
  events.length === 1 ? `event ${events[0].seq}` : `events ${events[0].seq}–${Arr.lastNonEmpty(events).seq}`

/** A run's events from `fromSeq`, decoded, with their recorded calls (a damaged one: RunRecordDamagedError). */
const loadEventsWith = (sql: SqlClient.SqlClient) => (id: string, fromSeq = 0) =>
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
 * A fenced append's guard, first in its transaction: the run's row is locked while the epoch is checked (a claim
 * waits for the append, or the append sees the claim), then the other servers are told at commit.
 */
const fencedWith = (sql: SqlClient.SqlClient) => (events: Batch, fence: Fence) => {
  const runId = events[0].runId
  const announced = announcement("events", `${runId}:${Arr.lastNonEmpty(events).seq}`)
  return Effect.gen(function*() {
    const held =
      yield* sql`UPDATE runs SET owner_epoch = owner_epoch WHERE id = ${runId} AND owner_epoch = ${fence.epoch}
      RETURNING id`
    if (held.length === 0) return yield* new RunFencedError({ runId, epoch: fence.epoch })
    yield* sql.onDialectOrElse({
      pg: () => sql`SELECT pg_notify(${noticesChannel}, ${announced})`,
      orElse: () => Effect.void
    })
  })
}

/** Why an append failed, as the store says it: the database's fault, a fence, or a record it could not fold. */
const appendFailure = (operation: string) => (e: SqlError | RunFencedError | RunRecordDamagedError | StoreError) =>
  e._tag === "SqlError"
    ? storeError(operation)(e)
    : e._tag === "RunRecordDamagedError"
    ? new StoreError({ operation, detail: e.message })
    : e

/** What a batch's records need to know of the run: whether it waits for a person now, its record at its end. */
const batchRecords = (loadEvents: ReturnType<typeof loadEventsWith>) => {
  /** The record after a batch, folded from what is stored before it and the batch. */
  const foldedWithStored = (events: Batch) =>
    Effect.map(
      loadEvents(events[0].runId),
      (stored) => foldEvents([...stored.filter((e) => e.seq < events[0].seq), ...events])
    )

  /** A batch that asks a person or takes an answer: whether the run waits now, as the record says after it. */
  const waitingRecords = (events: Batch, log?: ReadonlyArray<RunEvent>, record?: RunRecord) =>
    !events.some(asksOrAnswers) ? Effect.succeed([]) : Effect.map(
      record ? Effect.succeed(record) : log ? Effect.succeed(foldEvents(log)) : foldedWithStored(events),
      (r): Array<Statement> => [
        statement`UPDATE runs SET awaiting_input = ${awaitingInput(r) ? 1 : 0}, updated_at = ${
          timeOf(Date.now())
        } WHERE id = ${events[0].runId}`,
        // the run's webhook told that it waits (store/Outbox), with the event that asked
        ...awaitingDelivery(events.findLast(asks) ?? events[0], r, events.some(asks))
      ]
    )

  /**
   * The run's record at its RunFinished: the caller's (the fold of `log`, when the log ends with it), else the fold of
   * `log`, else of what is stored before the batch and the batch.
   */
  const recordAtEnd = (
    finished: Extract<RunEvent, { _tag: "RunFinished" }>,
    events: Batch,
    log?: ReadonlyArray<RunEvent>,
    record?: RunRecord
  ) =>
    log && log[log.length - 1] === finished ?
      Effect.succeed(record ?? foldEvents(log)) :
      foldedWithStored(events)
  return { waitingRecords, recordAtEnd }
}

/**
 * A run's event log in the store: read back (decoded; a stored event that no longer decodes is a
 * RunRecordDamagedError), and appended in group commits with the records RunStarted and RunFinished open and close.
 * On the embedded database (`writer`), a plain batch goes straight through better-sqlite3.
 */
export const makeEventLog = (sql: SqlClient.SqlClient, writer?: SqliteWriter["Type"]) => {
  const loadEvents = loadEventsWith(sql)
  const { recordAtEnd, waitingRecords } = batchRecords(loadEvents)
  const fenced = fencedWith(sql)

  /**
   * Appends events in order, all or none: a batch of plain events is one multi-row INSERT (a group commit); a
   * batch holding RunStarted or RunFinished is one transaction with the records they open or close. (One
   * statement of data-modifying CTEs would save PostgreSQL two round trips per run, but SQLite has none.)
   */
  const appendBatch = (
    events: Batch,
    log: ReadonlyArray<RunEvent> | undefined,
    fence: Fence | undefined,
    record: RunRecord | undefined
  ): Effect.Effect<void, StoreError | RunFencedError> => {
    const started = events.find(beginsRun)
    const finished = events.find(endsRun)
    const calls = recordedCalls(events)
    const write = Effect.gen(function*() {
      const records = [
        ...(started ? [...startRecords(started), ...startedDelivery(started)] : []),
        ...(finished ? [] : yield* waitingRecords(events, log, record)),
        ...(finished ?
          yield* Effect.map(recordAtEnd(finished, events, log, record), (atEnd) => [
            ...finishRecords(finished, atEnd),
            ...finishedDelivery(finished, atEnd)
          ]) :
          [])
      ]
      const statements = [...insertsOf(events, calls), ...records]
      // the embedded database: the batch, its recorded calls and its records straight through, in one transaction
      if (writer && !fence) return yield* writer.writeAll(statements.map(toRaw))
      const [only, ...more] = statements
      if (only && more.length === 0 && !fence) return yield* toSql(sql, only)
      const all = [...(fence ? [fenced(events, fence)] : []), ...statements.map((s) => toSql(sql, s))]
      return yield* Effect.forEach(all, (s) => s, { discard: true }).pipe(sql.withTransaction)
    })
    const range = rangeOf(events)
    return write.pipe(
      Effect.asVoid,
      // a transaction whose connection was lost fails its ROLLBACK too, which @effect/sql raises as a defect: the
      // write failed all the same, and why is in its causes
      Effect.catchSomeDefect((d) => d instanceof SqlError ? Option.some(Effect.fail(d)) : Option.none()),
      Effect.mapError(appendFailure(`appending ${range} of run ${events[0].runId}`))
    )
  }

  return {
    loadEvents,
    append: (all: ReadonlyArray<RunEvent>, log?: ReadonlyArray<RunEvent>, fence?: Fence, record?: RunRecord) =>
      Arr.isNonEmptyReadonlyArray(all) ? appendBatch(all, log, fence, record) : Effect.void
  }
}
