import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"
import { answerOf } from "../llm/Completion.js"
import { isRecord } from "../prompts/ModelShapes.js"
import { sortedKeys } from "../support/SortedKeys.js"
import { messageOf as thrownMessage } from "../support/Thrown.js"

/**
 * A run's output schema (run input `outputSchema`): the JSON Schema its answer's value must meet. Checked before the
 * run starts (`prepareOutputSchema`: a schema no provider can take is refused with the rule it broke), adapted to
 * what a structured-output endpoint takes (its root an object, its objects closed when strict), and every value the
 * model writes validated against it with the exact paths that fail (`violationsOf`).
 */

/** The rules a schema may break, each a refusal's `rule`. */
export type OutputSchemaRule =
  | "not_an_object"
  | "invalid_schema"
  | "remote_ref"
  | "too_large"
  | "too_deep"
  | "unsupported_keyword"
  | "strict_unsupported"

/**
 * The schema's JSON text at most this long: it is sent with every answer call (and its repair), so 32 KB — about 8,000
 * tokens, more than a typical run's whole answer call — bounds what a schema adds to a run's bill.
 */
export const MAX_SCHEMA_CHARS = 32_768
/** Objects and arrays nested at most this deep: OpenAI's structured outputs take 10 levels, other providers fewer. */
export const MAX_SCHEMA_DEPTH = 10

/** Keywords no provider's structured output takes: draft 2019/2020 dynamic references. */
const UNSUPPORTED = ["$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"]
/** Keywords OpenAI's strict mode refuses: a schema using one is sent non-strict (validated here all the same). */
const NOT_STRICT = [
  "patternProperties",
  "unevaluatedProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "unevaluatedItems",
  "contains",
  "minContains",
  "maxContains",
  "uniqueItems",
  "if",
  "then",
  "else",
  "not",
  "dependentRequired",
  "dependentSchemas",
  "allOf",
  "oneOf"
]
const NESTING = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]
const SUBSCHEMA = ["items", "additionalProperties", "contains", "not", "if", "then", "else", "propertyNames"]
const BRANCHES = ["anyOf", "oneOf", "allOf", "prefixItems"]

export interface OutputSchemaRefusal {
  readonly rule: OutputSchemaRule
  readonly message: string
}

export interface PreparedOutputSchema {
  /** As the caller gave it. */
  readonly schema: Record<string, unknown>
  /** As it is sent to the model: an object at its root (a value of another type wrapped in `{ value }`). */
  readonly sent: Record<string, unknown>
  /** The value is `sent`'s `value` field. */
  readonly wrapped: boolean
  /** Sent strict (every object closed and its every field required, no keyword strict mode refuses). */
  readonly strict: boolean
  readonly validate: ValidateFunction
}

type Json = Record<string, unknown>

/** Every subschema with its JSON pointer and its nesting (objects and arrays the value nests in). */
const walk = (schema: unknown, visit: (s: Json, at: string, depth: number) => void, at = "", depth = 0): void => {
  if (!isRecord(schema)) return
  visit(schema, at, depth)
  const inner = schema.type === "array" || schema.type === "object" || "properties" in schema || "items" in schema
    ? depth + 1
    : depth
  for (const key of NESTING) {
    const members = schema[key]
    if (!isRecord(members)) continue
    const d = key === "$defs" || key === "definitions" ? depth : inner
    for (const [name, s] of Object.entries(members)) walk(s, visit, `${at}/${key}/${name}`, d)
  }
  for (const key of SUBSCHEMA) walk(schema[key], visit, `${at}/${key}`, inner)
  for (const key of BRANCHES) {
    const members = schema[key]
    if (Array.isArray(members)) {
      members.forEach((s, i) => walk(s, visit, `${at}/${key}/${i}`, key === "prefixItems" ? inner : depth))
    }
  }
}

const refusal = (rule: OutputSchemaRule, message: string): OutputSchemaRefusal => ({ rule, message })

/** The first rule the schema breaks, before it is compiled. */
const shapeRefusal = (schema: Json): OutputSchemaRefusal | undefined => {
  const chars = JSON.stringify(schema).length
  if (chars > MAX_SCHEMA_CHARS) {
    return refusal("too_large", `outputSchema is ${chars} characters of JSON; at most ${MAX_SCHEMA_CHARS} are taken`)
  }
  let found: OutputSchemaRefusal | undefined
  walk(schema, (s, at, depth) => {
    if (found) return
    const ref = s.$ref
    if (typeof ref === "string" && !ref.startsWith("#")) {
      found = refusal(
        "remote_ref",
        `outputSchema${at}/$ref is ${JSON.stringify(ref)}: only local references (#/…) are taken, nothing is fetched`
      )
    } else if (depth > MAX_SCHEMA_DEPTH) {
      found = refusal(
        "too_deep",
        `outputSchema${at} nests ${depth} objects or arrays deep; at most ${MAX_SCHEMA_DEPTH} are taken`
      )
    } else {
      const keyword = UNSUPPORTED.find((k) => k in s)
      if (keyword) {
        found = refusal(
          "unsupported_keyword",
          `outputSchema${at} uses ${keyword}, which no model provider's structured output takes`
        )
      }
    }
  })
  return found
}

/** Where strict mode cannot take the schema (the first place), or undefined. */
const strictObstacle = (schema: Json): string | undefined => {
  let found: string | undefined
  walk(schema, (s, at) => {
    if (found) return
    const keyword = NOT_STRICT.find((k) => k in s)
    if (keyword) found = `${at || "/"} uses ${keyword}`
    else if (s.type === "object" || "properties" in s) {
      const fields = Object.keys(isRecord(s.properties) ? s.properties : {})
      const required = Array.isArray(s.required) ? s.required : []
      const optional = fields.filter((f) => !required.includes(f))
      if (!isRecord(s.properties)) found = `${at || "/"} is an object without properties`
      else if (optional.length > 0) found = `${at || "/"} has optional fields (${optional.join(", ")})`
      else if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
        found = `${at || "/"} allows more fields`
      }
    }
  })
  return found
}

/** Every object with fields closed (`additionalProperties: false` where the schema says nothing). */
const closed = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(closed)
  if (!isRecord(v)) return v
  const out: Json = Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, k === "enum" || k === "const" ? x : closed(x)])
  )
  if (isRecord(v.properties) && v.additionalProperties === undefined) out.additionalProperties = false
  return out
}

const isObjectRoot = (s: Json) => s.type === "object" && !("anyOf" in s) && !("oneOf" in s) && !("allOf" in s)

/** A value of another type than an object is asked for as `{ value }` (a provider's root is an object). */
const wrap = (s: Json): Json => {
  const { $defs, definitions, $schema: _, ...rest } = s
  return {
    type: "object",
    properties: { value: rest },
    required: ["value"],
    additionalProperties: false,
    ...($defs !== undefined ? { $defs } : {}),
    ...(definitions !== undefined ? { definitions } : {})
  }
}

/** The one Ajv of the engine: output schemas here, criteria.answerSchema in AnswerPredicates. */
export const ajv = new Ajv({ allErrors: true, strict: false })

/**
 * The schema checked and prepared, or the rule it breaks. `strict`: true asks strict mode (refused where the schema
 * cannot have it), false never, undefined whenever the schema can have it.
 */
export const prepareOutputSchema = (
  given: unknown,
  strict?: boolean
): { readonly ok: true; readonly prepared: PreparedOutputSchema } | {
  readonly ok: false
  readonly refusal: OutputSchemaRefusal
} => {
  if (!isRecord(given)) {
    return {
      ok: false,
      refusal: refusal(
        "not_an_object",
        "outputSchema must be a JSON Schema object, e.g. {\"type\":\"object\",\"properties\":{…}}"
      )
    }
  }
  // keys in one order: a store may hand the input back reordered (jsonb), and the prompts made of the schema must be
  // the same text on every resume, fork and replay
  const schema = sortedKeys(given) as Json
  const shape = shapeRefusal(schema)
  if (shape) return { ok: false, refusal: shape }
  if (!ajv.validateSchema(schema)) {
    return {
      ok: false,
      refusal: refusal(
        "invalid_schema",
        `outputSchema is not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: "outputSchema" })}`
      )
    }
  }
  let validate: ValidateFunction
  try {
    validate = ajv.compile(schema)
  } catch (e) {
    return {
      ok: false,
      refusal: refusal("invalid_schema", `outputSchema is not a valid JSON Schema: ${thrownMessage(e)}`)
    }
  }
  const obstacle = strictObstacle(schema)
  if (strict === true && obstacle !== undefined) {
    return {
      ok: false,
      refusal: refusal("strict_unsupported", `strict structured output cannot take this schema: ${obstacle}`)
    }
  }
  const useStrict = strict !== false && obstacle === undefined
  const { $schema: _, ...plain } = schema
  const adapted = (useStrict ? closed(plain) : plain) as Json
  const wrapped = !isObjectRoot(adapted)
  // strict: the value is validated as it was asked for (every object closed), so strict mode holds whoever answers
  const checker = useStrict ? ajv.compile(adapted) : validate
  return {
    ok: true,
    prepared: { schema, sent: wrapped ? wrap(adapted) : adapted, wrapped, strict: useStrict, validate: checker }
  }
}

const pathOf = (e: ErrorObject): string => {
  const params = e.params as { missingProperty?: string; additionalProperty?: string }
  if (e.keyword === "required" && params.missingProperty) return `${e.instancePath}/${params.missingProperty}`
  if (e.keyword === "additionalProperties" && params.additionalProperty) {
    return `${e.instancePath}/${params.additionalProperty}`
  }
  return e.instancePath || "/"
}

const messageOf = (e: ErrorObject): string =>
  e.keyword === "required"
    ? "is required"
    : e.keyword === "additionalProperties"
    ? "is not allowed"
    : e.message ?? e.keyword

/** What in the value breaks the schema, one line each: `/items/0/price: must be number`. Empty when it is valid. */
export const violationsOf = (prepared: PreparedOutputSchema, value: unknown): ReadonlyArray<string> => {
  if (prepared.validate(value)) return []
  const lines = (prepared.validate.errors ?? []).map((e) => `${pathOf(e)}: ${messageOf(e)}`)
  return [...new Set(lines)]
}

/** The value of the model's answer: `sent`'s `value` when the schema was wrapped. */
export const valueOf = (prepared: PreparedOutputSchema, answer: unknown): unknown =>
  prepared.wrapped && isRecord(answer) && "value" in answer ? answer.value : answer

/** The value as a person reads it in `answerText`: a text as it is, anything else as indented JSON. */
export const renderValue = (value: unknown): string =>
  typeof value === "string" ? value : JSON.stringify(value, null, 2)

/** A text that is a JSON value (a plan's answer filled in, a step's output), or undefined. */
export const jsonValueOf = (text: string): unknown => {
  // the answer as a model's text holds it (its reasoning block and a Markdown fence aside): llm/Completion's rule
  const trimmed = answerOf(text)
  if (!/^[[{"]|^-?\d|^(true|false|null)$/.test(trimmed)) return undefined
  try {
    return JSON.parse(trimmed)
  } catch {
    return undefined
  }
}
