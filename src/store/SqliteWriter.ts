import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect } from "effect"

/** A statement as better-sqlite3 runs it: SQL text with `?` placeholders, and its parameters. */
export type RawStatement = readonly [sql: string, params: ReadonlyArray<unknown>]

/**
 * Writes on the embedded database straight through better-sqlite3, on the client's one connection and under its
 * permit: the run's event appends, with the records RunStarted and RunFinished open and close. Through @effect/sql
 * each statement and transaction makes a span, a scope and a compiled statement, which took about twice the time of
 * the write itself; and appends are most of what the store adds to a run (bench row 6, the store's share).
 */
export class SqliteWriter extends Context.Tag("aeon/SqliteWriter")<SqliteWriter, {
  /** Runs the statements in one transaction (one statement: on its own), all or none. */
  readonly writeAll: (statements: ReadonlyArray<RawStatement>) => Effect.Effect<void, SqlError>
}>() {}
