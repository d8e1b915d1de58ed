import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Schema } from "effect"
import type { RunStatus } from "../record/RunResult.js"
import { storeCauseOf } from "./StoreCause.js"

/**
 * The database refused or failed an operation. What a client sees names the operation only; the database's own
 * text (SQL, constraint names) stays in `detail`, for the server's log.
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  operation: Schema.String,
  detail: Schema.String,
  /** Why, in words a person can act on (the disk full, a database refusing connections), when it is known. */
  cause: Schema.optional(Schema.String),
  /** The cause can pass by itself (the disk full, the database away): a write that waits for it is tried again. */
  passes: Schema.optional(Schema.Boolean)
}) {
  override get message() {
    return `the store failed while ${this.operation}${this.cause ? `: ${this.cause}` : ""}`
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

/** A run's owner epoch, as the process executing it took it up (store/RunLease). */
export interface Fence {
  readonly epoch: number
}

/** Another process has taken the run up since this one did: its writes are refused and it stops here. */
export class RunFencedError extends Schema.TaggedError<RunFencedError>()("RunFencedError", {
  runId: Schema.String,
  epoch: Schema.Number
}) {
  override get message() {
    return `run ${this.runId} was taken up by another process (this one held epoch ${this.epoch})`
  }
}

/** Another process holds the run (its hold lasts): it is not taken up here. */
export class RunHeldElsewhereError
  extends Schema.TaggedError<RunHeldElsewhereError>()("RunHeldElsewhereError", { runId: Schema.String })
{
  override get message() {
    return `run ${this.runId} is held by another process`
  }
}

/**
 * The one channel Aeon announces on (PostgreSQL's NOTIFY): a process hears all of it on its one LISTEN connection
 * (store/Notifications). Several channels on one connection would LISTEN on it several times at once, which
 * node-postgres queues with a deprecation warning.
 */
export const noticesChannel = "aeon_notices"

/**
 * What an announcement is about: a fenced append's new events (`runId:lastSeq`, at commit), or a process's ping of its
 * own connection.
 */
export type Topic = "events" | "ping"

/** An announcement's payload: its topic, a space, what it says. */
export const announcement = (topic: Topic, payload: string) => `${topic} ${payload}`

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
  /** The agent it is a run of (its name), and the run that called it as a tool. */
  readonly agent: string | null
  readonly parentRunId: string | null
}

export interface RunPage {
  readonly runs: ReadonlyArray<StoredRun>
  readonly endCursor: string | null
  readonly hasNextPage: boolean
}

export const storeError = (operation: string) => (e: SqlError) => {
  const cause = storeCauseOf(e)
  return new StoreError({
    operation,
    detail: `${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ""}`,
    ...(cause ? { cause: cause.words, passes: cause.passes } : {})
  })
}
export const json = (v: unknown) => JSON.stringify(v ?? null)
export const parse = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v)

/** A time as the store writes it: ISO-8601 with milliseconds. */
export const isoTime = (ms: number) => new Date(ms).toISOString()

/** Values as each dialect stores them. */
export const sqlValues = (sql: SqlClient.SqlClient) => {
  /** A JSON value: jsonb on PostgreSQL, JSON text on SQLite. */
  const jsonValue = (v: unknown) =>
    sql.onDialectOrElse({ pg: () => sql`${json(v)}::jsonb`, orElse: () => sql`${json(v)}` })
  /** A timestamp written by the application (ISO-8601, milliseconds): timestamptz on PostgreSQL, text on SQLite. */
  const time = (ms: number) => {
    const at = isoTime(ms)
    return sql.onDialectOrElse({ pg: () => sql`${at}::timestamptz`, orElse: () => sql`${at}` })
  }

  return { jsonValue, time }
}
