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
/** JSON text of a json column (its key order kept on PostgreSQL; text on SQLite). */
export const jsonText = (text: string) => new Cast(text, "json")
/** A time written by the application (ISO-8601, milliseconds): timestamptz on PostgreSQL, text on SQLite. */
export const timeOf = (ms: number) => new Cast(isoTime(ms), "timestamptz")
/** An ISO-8601 time already made, as `timeOf` writes it. */
export const isoOf = (iso: string) => new Cast(iso, "timestamptz")

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

/**
 * The row counts a multi-row INSERT is written for. A batch goes in chunks of these sizes, largest first (37 rows:
 * 16 + 16 + 4 + 1), so the statements a database prepares for inserts are a fixed set of four per table, whatever
 * the batch sizes — the embedded database keeps every statement it prepares (SqliteClient says why).
 */
export const CHUNK_SIZES = [64, 16, 4, 1] as const

export const chunked = <A>(rows: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const chunks: Array<ReadonlyArray<A>> = []
  let at = 0
  for (const size of CHUNK_SIZES) {
    while (rows.length - at >= size) chunks.push(rows.slice(at, at += size))
  }
  return chunks
}

// an INSERT's template strings per shape (head, row count, width, tail): one object each, so toRaw's text is made once
const shapes = new Map<string, TemplateStringsArray>()
const shapeOf = (head: string, count: number, width: number, tail: string) => {
  const key = `${head}|${count}|${width}|${tail}`
  let strings = shapes.get(key)
  if (strings === undefined) {
    const parts = [`${head} VALUES (`]
    for (let row = 0; row < count; row++) {
      for (let column = 1; column < width; column++) parts.push(", ")
      parts.push(row === count - 1 ? `)${tail}` : "), (")
    }
    shapes.set(key, strings = Object.assign(parts, { raw: parts }) as unknown as TemplateStringsArray)
  }
  return strings
}

/**
 * `head VALUES (…), (…) tail` for rows of one width, in chunks of CHUNK_SIZES: the statements written once for both
 * databases, like `statement`.
 */
export const insertRows = (
  head: string,
  rows: ReadonlyArray<ReadonlyArray<Value>>,
  tail = ""
): Array<Statement> =>
  chunked(rows).map((chunk) => ({
    strings: shapeOf(head, chunk.length, chunk[0]!.length, tail),
    values: chunk.flat()
  }))
