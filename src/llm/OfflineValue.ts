import { isRecord } from "../prompts/ModelShapes.js"

/**
 * The offline stand-in's typed answer: a value of the run's output schema made by rule from the steps' outputs — the
 * numbers they state fill number fields in order, their text fills text fields, anything else takes the schema's first
 * allowed value. It does not understand the task; the run's answer is labeled by its model like every offline answer.
 */
type Json = Record<string, unknown>

interface Source {
  readonly numbers: Array<number>
  readonly text: string
  readonly root: Json
}

const resolved = (schema: Json, root: Json): Json => {
  const ref = schema.$ref
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema
  const target = ref.slice(2).split("/").reduce<unknown>((at, key) => (isRecord(at) ? at[key] : undefined), root)
  return isRecord(target) ? resolved(target, root) : {}
}

const typeOf = (schema: Json): string | undefined => {
  const t = schema.type
  if (typeof t === "string") return t
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === "string" && x !== "null")
  if (isRecord(schema.properties)) return "object"
  if (schema.items !== undefined) return "array"
  return undefined
}

const numberFor = (schema: Json, source: Source, integer: boolean): number => {
  const next = source.numbers.shift() ?? (typeof schema.minimum === "number" ? schema.minimum : 0)
  return integer ? Math.round(next) : next
}

const valueFor = (raw: unknown, source: Source): unknown => {
  if (!isRecord(raw)) return null
  const schema = resolved(raw, source.root)
  if ("const" in schema) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum[0]
  const branch = schema.anyOf ?? schema.oneOf
  if (Array.isArray(branch) && branch.length > 0) return valueFor(branch[0], source)
  switch (typeOf(schema)) {
    case "object": {
      const fields = isRecord(schema.properties) ? schema.properties : {}
      return Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, valueFor(s, source)]))
    }
    case "array": {
      const count = typeof schema.minItems === "number" ? schema.minItems : 1
      return Array.from({ length: count }, () => valueFor(schema.items, source))
    }
    case "number":
      return numberFor(schema, source, false)
    case "integer":
      return numberFor(schema, source, true)
    case "boolean":
      return false
    case "string":
      return source.text
    default:
      return null
  }
}

/** A value of `schema` from the steps' outputs (`{ value }` when the schema sent is the wrapped one). */
export const offlineValue = (schema: object, outputs: ReadonlyArray<string>): unknown => {
  const text = outputs.join("\n")
  const numbers = [...text.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]))
  // a step's "expression = value": the value is what it established
  const results = [...text.matchAll(/=\s*(-?\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]))
  return valueFor(schema, { numbers: results.length > 0 ? results : numbers, text, root: schema as Json })
}
