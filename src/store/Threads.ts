import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Option } from "effect"
import type { ConversationMessage, ConversationSummary } from "../domain/Conversation.js"
import { RunUnfinishedError, ThreadBusyError, ThreadNotFoundError } from "../domain/Errors.js"
import { isFinal } from "../domain/RunStatus.js"
import type { RunStatus } from "../record/RunResult.js"
import { parse, sqlValues, type StoreError, storeError } from "./StoreValues.js"

/**
 * Conversations: a thread is a user's (its owner: the user id, '' for none) and its turns are runs, in order
 * (store/Migrations 0012). A run joins a thread as its next turn when it is created (RunStore.createRun); what the
 * turns said is read back from the runs (their task and answer), and the summaries of the oldest turns
 * (memory/Conversation) are stored here for the turns after them.
 */
export interface ThreadTurn {
  readonly turn: number
  readonly runId: string
  readonly task: string
  readonly status: RunStatus
  readonly answer: string | null
  readonly data: unknown
  readonly createdAt: Date
}

export interface ThreadRow {
  readonly id: string
  readonly owner: string
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly turns: number
  readonly lastTask: string | null
}

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly endCursor: string | null
  readonly hasNextPage: boolean
}

/** A summary stored for a conversation's prefix. */
export interface StoredSummary extends ConversationSummary {
  readonly prefixHash: string
}

export interface Service {
  readonly get: (owner: string, id: string) => Effect.Effect<Option.Option<ThreadRow>, StoreError>
  /** The owner's threads, the latest used first. */
  readonly list: (owner: string, q: { first?: number; after?: string }) => Effect.Effect<Page<ThreadRow>, StoreError>
  /** A thread's turns, oldest first (ThreadNotFoundError: not the owner's). */
  readonly turns: (
    owner: string,
    id: string,
    q: { first?: number; after?: string }
  ) => Effect.Effect<Page<ThreadTurn>, StoreError | ThreadNotFoundError>
  /**
   * What a run of the thread sees of it: its own turn (undefined: the run is not a turn, a fork's) and the messages of
   * the turns before it that have ended (a user's message, the answer), from turn `after` + 1 on.
   */
  /** The latest turn before run `runId`'s on its thread that has not ended (none: the run is no turn, or all ended). */
  readonly unfinishedBefore: (runId: string) => Effect.Effect<Option.Option<string>, StoreError>
  readonly earlier: (
    owner: string,
    id: string,
    runId: string,
    after: number
  ) => Effect.Effect<{ readonly turn: number | undefined; readonly messages: Array<ConversationMessage> }, StoreError>
  /** The summaries stored under a key (a thread's id, or a client history's `history:` key), the widest first. */
  readonly summaries: (owner: string, key: string) => Effect.Effect<ReadonlyArray<StoredSummary>, StoreError>
  readonly saveSummary: (
    owner: string,
    key: string,
    summary: StoredSummary,
    runId: string
  ) => Effect.Effect<void, StoreError>
  /**
   * Erases a thread: its turns (their runs, events, recorded calls and memories: each quotes the conversation), its
   * summaries. Refused while a turn is under way; false when there is no such thread.
   */
  readonly forget: (owner: string, id: string) => Effect.Effect<boolean, StoreError | ThreadBusyError>
  /**
   * Erases one run of its owner: its events, recorded calls, memories, thread turn, the conversation summaries it
   * made (a client history's, kept under its first message), and the files no other run carries. Refused while it
   * runs; false when the owner has no such run.
   */
  readonly forgetRun: (owner: string, id: string) => Effect.Effect<boolean, StoreError | RunUnfinishedError>
}

export class Threads extends Context.Tag("aeon/Threads")<Threads, Service>() {}

const UNFINISHED = "('QUEUED', 'RUNNING')"

const cursorOf = (parts: ReadonlyArray<string>) => Buffer.from(parts.join("|")).toString("base64url")
const partsOf = (c: string | undefined) => (c ? Buffer.from(c, "base64url").toString().split("|") : undefined)

/** Whether a client's `after` is a cursor of a thread list (its time and id) or of a thread's turns (a number). */
export const isThreadCursor = (c: string) => {
  const [at, id, more] = partsOf(c) ?? []
  return at !== undefined && id !== undefined && more === undefined && !Number.isNaN(Date.parse(at))
}
export const isTurnCursor = (c: string) => /^[1-9]\d{0,8}$/.test(partsOf(c)?.[0] ?? "") && partsOf(c)?.length === 1

const toThread = (r: any): ThreadRow => ({
  id: r.id,
  owner: r.owner,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  turns: Number(r.turns ?? 0),
  lastTask: r.last_task ?? null
})

const toTurn = (r: any): ThreadTurn => {
  const result = parse(r.result) as { finalAnswer?: { answerText?: string; data?: unknown } } | null
  return {
    turn: Number(r.turn),
    runId: r.run_id,
    task: r.task,
    status: r.status === "RUNNING" && Number(r.awaiting_input) === 1 ? "AWAITING_INPUT" : r.status,
    answer: result?.finalAnswer?.answerText ?? null,
    data: result?.finalAnswer?.data,
    createdAt: new Date(r.created_at)
  }
}

/** A turn as the conversation's two messages: what the user asked, what the run answered (its value, when typed). */
export const messagesOf = (t: ThreadTurn): Array<ConversationMessage> => [
  { role: "user", text: t.task },
  {
    role: "assistant",
    text: t.data !== undefined
      ? JSON.stringify(t.data)
      : t.answer ?? `(no answer: the turn ended ${t.status.toLowerCase().replace("_", " ")})`
  }
]

/**
 * The thread part of creating a run (RunStore.createRun, in its transaction): the thread made or touched first — its
 * row locked, so a second turn sent at once waits for the first's transaction and then finds it under way (PostgreSQL
 * reads what was committed before each statement) —, then refused if a turn is under way, else the next turn.
 */
export const joinThread = (
  sql: SqlClient.SqlClient,
  owner: string,
  id: string,
  runId: string,
  whileBusy: "REJECT" | "QUEUE" = "REJECT"
) =>
  Effect.gen(function*() {
    const { time } = sqlValues(sql)
    const now = time(Date.now())
    yield* sql`INSERT INTO threads (owner, id, created_at, updated_at) VALUES (${owner}, ${id}, ${now}, ${now})
      ON CONFLICT (owner, id) DO UPDATE SET updated_at = excluded.updated_at`
    // the turn under way (the latest unfinished): refused, or the new turn numbered after it
    const busy = yield* sql<{ run_id: string }>`SELECT t.run_id FROM thread_turns t JOIN runs r ON r.id = t.run_id
      WHERE t.owner = ${owner} AND t.thread_id = ${id} AND r.status IN ${sql.unsafe(UNFINISHED)}
      ORDER BY t.turn DESC LIMIT 1`
    if (busy[0] && whileBusy === "REJECT") {
      return yield* new ThreadBusyError({ threadId: id, runId: busy[0].run_id })
    }
    const insert = sql`INSERT INTO thread_turns (owner, thread_id, turn, run_id)
        SELECT ${owner}, ${id}, COALESCE(MAX(turn), 0) + 1, ${runId} FROM thread_turns
        WHERE owner = ${owner} AND thread_id = ${id}`.pipe(
      // another turn took the number between the check and the insert (two servers at once)
      Effect.catchTag("SqlError", () => Effect.fail(new ThreadBusyError({ threadId: id })))
    )
    return { after: busy[0]?.run_id, insert }
  })

/** A thread's row with how many turns it has and its last turn's task. */
const THREAD_COLUMNS = `(SELECT COUNT(*) FROM thread_turns t WHERE t.owner = th.owner AND t.thread_id = th.id) AS turns,
  (SELECT r.task FROM thread_turns t JOIN runs r ON r.id = t.run_id WHERE t.owner = th.owner
    AND t.thread_id = th.id ORDER BY t.turn DESC LIMIT 1) AS last_task`

const turnColumns = "t.turn, t.run_id, r.task, r.status, r.awaiting_input, r.result, r.created_at"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { time } = sqlValues(sql)
  const get: Service["get"] = (owner, id) =>
    sql`SELECT th.*, ${sql.unsafe(THREAD_COLUMNS)} FROM threads th WHERE th.owner = ${owner} AND th.id = ${id}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(toThread))),
      Effect.mapError(storeError(`reading thread ${id}`))
    )
  const service: Service = {
    get,
    list: (owner, { after, first = 20 }) =>
      Effect.gen(function*() {
        const limit = Math.max(1, Math.min(100, first))
        const [at, id] = partsOf(after) ?? []
        const rows = yield* sql`SELECT th.*, ${sql.unsafe(THREAD_COLUMNS)} FROM threads th WHERE th.owner = ${owner} ${
          at && id ? sql`AND (th.updated_at, th.id) < (${time(Date.parse(at))}, ${id})` : sql``
        } ORDER BY th.updated_at DESC, th.id DESC LIMIT ${limit + 1}`
        const items = rows.slice(0, limit).map(toThread)
        const last = items.at(-1)
        return {
          items,
          endCursor: last ? cursorOf([last.updatedAt.toISOString(), last.id]) : null,
          hasNextPage: rows.length > limit
        }
      }).pipe(Effect.mapError(storeError("listing threads"))),
    turns: (owner, id, { after, first = 20 }) =>
      Effect.gen(function*() {
        if (Option.isNone(yield* get(owner, id))) return yield* new ThreadNotFoundError({ threadId: id })
        const limit = Math.max(1, Math.min(100, first))
        const from = Number(partsOf(after)?.[0] ?? 0) || 0
        const rows = yield* sql`SELECT ${sql.unsafe(turnColumns)} FROM thread_turns t JOIN runs r ON r.id = t.run_id
          WHERE t.owner = ${owner} AND t.thread_id = ${id} AND t.turn > ${from} ORDER BY t.turn LIMIT ${limit + 1}`
          .pipe(Effect.mapError(storeError(`reading the turns of thread ${id}`)))
        const items = rows.slice(0, limit).map(toTurn)
        const last = items.at(-1)
        return { items, endCursor: last ? cursorOf([String(last.turn)]) : null, hasNextPage: rows.length > limit }
      }),
    unfinishedBefore: (runId) =>
      sql<{ run_id: string }>`SELECT p.run_id FROM thread_turns t
        JOIN thread_turns p ON p.owner = t.owner AND p.thread_id = t.thread_id AND p.turn < t.turn
        JOIN runs r ON r.id = p.run_id
        WHERE t.run_id = ${runId} AND r.status IN ${sql.unsafe(UNFINISHED)} ORDER BY p.turn DESC LIMIT 1`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.run_id)),
        Effect.mapError(storeError(`reading the turn before run ${runId}`))
      ),
    earlier: (owner, id, runId, after) =>
      Effect.gen(function*() {
        const own = yield* sql<{ turn: number }>`SELECT turn FROM thread_turns WHERE run_id = ${runId}`
        const turn = own[0] ? Number(own[0].turn) : undefined
        const rows = yield* sql`SELECT ${sql.unsafe(turnColumns)} FROM thread_turns t JOIN runs r ON r.id = t.run_id
          WHERE t.owner = ${owner} AND t.thread_id = ${id} AND t.turn > ${after} ${
          turn !== undefined ? sql`AND t.turn < ${turn}` : sql``
        } AND r.status NOT IN ${sql.unsafe(UNFINISHED)} ORDER BY t.turn`
        return { turn, messages: rows.map(toTurn).flatMap(messagesOf) }
      }).pipe(Effect.mapError(storeError(`reading the conversation of thread ${id}`))),
    summaries: (owner, key) =>
      sql<any>`SELECT covers, prefix_hash, text FROM thread_summaries WHERE owner = ${owner} AND thread_key = ${key}
        ORDER BY covers DESC, created_at DESC LIMIT 20`.pipe(
        Effect.map((rows) =>
          rows.map((r): StoredSummary => ({ covers: Number(r.covers), prefixHash: r.prefix_hash, text: r.text }))
        ),
        Effect.mapError(storeError(`reading the summaries of ${key}`))
      ),
    saveSummary: (owner, key, s, runId) =>
      sql`INSERT INTO thread_summaries (owner, thread_key, covers, prefix_hash, text, run_id, created_at)
        VALUES (${owner}, ${key}, ${s.covers}, ${s.prefixHash}, ${s.text}, ${runId}, ${time(Date.now())})
        ON CONFLICT (owner, thread_key, covers, prefix_hash) DO NOTHING`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError(`storing a summary of ${key}`))
      ),
    forget: (owner, id) => forgetThread(sql, owner, id),
    forgetRun: (owner, id) => forgetRun(sql, owner, id)
  }
  return service
})

const forgetThread = (sql: SqlClient.SqlClient, owner: string, id: string) =>
  sql.withTransaction(Effect.gen(function*() {
    const found = yield* sql`SELECT 1 FROM threads WHERE owner = ${owner} AND id = ${id}`
    if (found.length === 0) return false
    const busy = yield* sql<{ run_id: string }>`SELECT t.run_id FROM thread_turns t JOIN runs r ON r.id = t.run_id
      WHERE t.owner = ${owner} AND t.thread_id = ${id} AND r.status IN ${sql.unsafe(UNFINISHED)} LIMIT 1`
    if (busy[0]) return yield* new ThreadBusyError({ threadId: id, runId: busy[0].run_id })
    // the turns, and the forks of turns (their input names the thread: their events quote it too)
    const threadIs = sql.onDialectOrElse({
      pg: () => sql`input->>'threadId' = ${id}`,
      orElse: () => sql`json_extract(input, '$.threadId') = ${id}`
    })
    const runs = sql`SELECT run_id FROM thread_turns WHERE owner = ${owner} AND thread_id = ${id}
      UNION SELECT id FROM runs WHERE COALESCE(user_id, '') = ${owner} AND ${threadIs}`
    yield* sql`DELETE FROM memories WHERE run_id IN (${runs})`
    yield* sql`DELETE FROM runs WHERE id IN (${runs})`
    yield* sql`DELETE FROM thread_summaries WHERE owner = ${owner} AND thread_key = ${id}`
    yield* sql`DELETE FROM threads WHERE owner = ${owner} AND id = ${id}`
    yield* dropUnusedAttachments(sql)
    return true
  })).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(storeError(`forgetting thread ${id}`)(e))))

const forgetRun = (sql: SqlClient.SqlClient, owner: string, id: string) =>
  sql.withTransaction(Effect.gen(function*() {
    const found = yield* sql<{ status: string }>`SELECT status FROM runs WHERE id = ${id}
      AND COALESCE(user_id, '') = ${owner}`
    if (found.length === 0) return false
    const status = found[0]!.status
    if (!isFinal(status)) return yield* new RunUnfinishedError({ runId: id, status })
    yield* sql`DELETE FROM memories WHERE run_id = ${id}`
    yield* sql`DELETE FROM thread_summaries WHERE owner = ${owner} AND run_id = ${id}`
    yield* sql`DELETE FROM runs WHERE id = ${id}`
    yield* dropUnusedAttachments(sql)
    return true
  })).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(storeError(`forgetting run ${id}`)(e))))

/** The files no run's input names any more (they are kept once by hash, for every run that carries them). */
const dropUnusedAttachments = (sql: SqlClient.SqlClient) =>
  sql`DELETE FROM attachments WHERE NOT EXISTS (
    SELECT 1 FROM runs WHERE CAST(runs.input AS text) LIKE ${"%"} || attachments.sha256 || ${"%"})`

export const layer = Layer.effect(Threads, make)
