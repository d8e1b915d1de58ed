import { JSONSchema, type Schema } from "effect"
import { recordOf } from "./Fields.js"

const MARKS = new Set(["$schema", "$id", "title"])

/** Keywords whose value is an object of names (a field called `title` is a field, not a mark). */
const NAMED = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"])

const withoutMarks = (v: unknown, names = false): unknown =>
  Array.isArray(v)
    ? v.map((x) => withoutMarks(x))
    : v !== null && typeof v === "object"
    ? Object.fromEntries(
      Object.entries(v).filter(([k]) => names || !MARKS.has(k)).map((
        [k, x]
      ) => [k, withoutMarks(x, !names && NAMED.has(k))])
    )
    : v

/**
 * A schema as plain JSON Schema for a client (a model's structured output, an MCP tool's input): what the shape
 * needs, without the draft's URL, an identifier's `$id` and `title` (what a client cannot use, and a provider bills).
 */
export const plainJsonSchema = <A, I, R>(schema: Schema.Schema<A, I, R>): Record<string, unknown> =>
  recordOf(withoutMarks(JSONSchema.make(schema))) ?? {}
