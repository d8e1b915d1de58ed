import { JSONSchema, type Schema } from "effect"

const MARKS = new Set(["$schema", "$id", "title"])

const withoutMarks = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(withoutMarks)
    : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.entries(v).filter(([k]) => !MARKS.has(k)).map(([k, x]) => [k, withoutMarks(x)]))
    : v

/**
 * A schema as plain JSON Schema for a client (a model's structured output, an MCP tool's input): what the shape
 * needs, without the draft's URL, an identifier's `$id` and `title` (what a client cannot use, and a provider bills).
 */
export const plainJsonSchema = <A, I, R>(schema: Schema.Schema<A, I, R>): Record<string, unknown> =>
  withoutMarks(JSONSchema.make(schema)) as Record<string, unknown>
