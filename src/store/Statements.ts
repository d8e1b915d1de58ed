import type * as SqlClient from "@effect/sql/SqlClient"
import type { RawStatement } from "./SqliteWriter.js"
import { isoTime, json } from "./StoreValues.js"

/**
 * A value written as its column wants it: on PostgreSQL with a cast (json, jsonb, timestamptz), on SQLite as the
 * text itself (JSON text, an ISO-8601 time).
 */
export class Cast {
  constructor(readonly value: string, readonly pg: "json" | "jsonb" | "timestamptz") {}
}
export type Value = string | number | null | Cast

/** A JSON value of a jsonb column (json text on SQLite). */
export const jsonb = (v: unknown) => new Cast(json(v), "jsonb")
/** A time written by the application (ISO-8601, milliseconds): timestamptz on PostgreSQL, text on SQLite. */
export const timeOf = (ms: number) => new Cast(isoTime(ms), "timestamptz")

/**
 * A statement written once for both databases: run through @effect/sql (`toSql`), or as better-sqlite3 runs it
 * (`toRaw`, the embedded database's direct writer). Write it as a template: statement`UPDATE runs SET a = ${v}`.
 */
export interface Statement {
  readonly strings: TemplateStringsArray
  readonly values: ReadonlyArray<Value>
}
export const statement = (strings: TemplateStringsArray, ...values: Array<Value>): Statement => ({ strings, values })

// a template's strings are one object per place in the code: its text is made once
const texts = new WeakMap<TemplateStringsArray, string>()
export const toRaw = (s: Statement): RawStatement => {
  let text = texts.get(s.strings)
  if (text === undefined) texts.set(s.strings, text = s.strings.join("?"))
  return [text, s.values.map((v) => (v instanceof Cast ? v.value : v))]
}

export const toSql = (sql: SqlClient.SqlClient, s: Statement) =>
  sql(
    s.strings,
    ...s.values.map((v) =>
      v instanceof Cast
        ? sql.onDialectOrElse({ pg: () => sql`${v.value}::${sql.literal(v.pg)}`, orElse: () => sql`${v.value}` })
        : v
    )
  )
