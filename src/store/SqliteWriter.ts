import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect } from "effect"

/** A statement as better-sqlite3 runs it: SQL text with `?` placeholders, and its parameters. */
export type RawStatement = readonly [sql: string, params: ReadonlyArray<unknown>]

/**
 * Writes on the embedded database straight through better-sqlite3, on the client's one connection and under its
 * permit: the run's event appends, with the records RunStarted and RunFinished open and close. Through @effect/sql each statement and transaction makes a span, a scope and a
 * compiled statement: an append of 4 events, one with a recorded call (two INSERTs in one transaction), took
 * 240–250 µs there and 134–163 µs here (in-memory database, 5,000 appends, two runs each; without a recorded call
 * 183–270 against 100–120 µs), and appends are most of what the store adds to a run (bench/RESULTS.md, row 6).
 */
export class SqliteWriter extends Context.Tag("aeon/SqliteWriter")<SqliteWriter, {
  /** Runs the statements in one transaction (one statement: on its own), all or none. */
  readonly writeAll: (statements: ReadonlyArray<RawStatement>) => Effect.Effect<void, SqlError>
}>() {}
