import { ParseResult, Schema } from "effect"
import { memoize } from "../support/Memoize.js"

/**
 * What models answer is rarely the exact shape asked for: `step_id` for `stepId`, a nested
 * `location: { stepId }`, `"severity": "high"`, a repair as an object, scores as "85%". These helpers read such
 * variants (each output schema in Schemas.ts decodes through one of them, a Schema transform), so that nothing a
 * model said is lost to a shape: the strict shape stays what the prompt asks for (its JSON Schema is the
 * transform's type side) and what the engine gets.
 */

type Loose = Readonly<Record<string, unknown>>

/** "stepId", "step_id", "Step ID" and "stepid" are one key (remembered: the same few keys come in every answer). */
const keyOf = memoize((k: string) => k.toLowerCase().replace(/[\s_\-./]/g, ""), { maxKeyLength: 64 })

export const isRecord = (v: unknown): v is Loose => typeof v === "object" && v !== null && !Array.isArray(v)

/** The first of these fields the object has, whatever their case or separators. */
export const field = (o: Loose, ...names: ReadonlyArray<string>): unknown => {
  let keys: Array<string> | undefined
  for (const name of names) {
    // the name as asked first: what a model following the prompt answers, found without normalizing any key
    const exact = o[name]
    if (exact !== undefined && exact !== null) return exact
    const wanted = keyOf(name)
    for (const k of keys ??= Object.keys(o)) if (keyOf(k) === wanted && o[k] !== undefined && o[k] !== null) return o[k]
  }
  return undefined
}

/** A text: strings as they are, numbers and booleans written out, objects as JSON. */
export const text = (v: unknown): string | undefined =>
  v === undefined || v === null ?
    undefined
    : typeof v === "string" ?
    v
    : typeof v === "number" || typeof v === "boolean" ?
    String(v)
    : JSON.stringify(v)

/** A word from a fixed set, read in any case, with spaces or hyphens, or as one of its synonyms. */
export const oneOf = <A extends string>(synonyms: Readonly<Record<string, A>>) => (v: unknown): A | undefined =>
  typeof v === "string" ? synonyms[keyOf(v)] : undefined

/** A 0–1 score: a number, a numeric string, a percentage ("85%") or a 0–100 figure. */
export const unitScore = (v: unknown): number | undefined => {
  const n = typeof v === "number" ? v : typeof v === "string" ? Number.parseFloat(v) : Number.NaN
  if (!Number.isFinite(n)) return undefined
  const percent = typeof v === "string" && v.trim().endsWith("%")
  return percent || (n > 1 && n <= 100) ? n / 100 : n
}

/** A boolean: true/false, "yes"/"no", "true"/"false", 1/0. */
export const bool = (v: unknown): boolean | undefined => {
  if (typeof v === "boolean") return v
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : undefined
  if (typeof v === "string") {
    const k = keyOf(v)
    return ["true", "yes", "y", "1"].includes(k) ? true : ["false", "no", "n", "0"].includes(k) ? false : undefined
  }
  return undefined
}

/** A list of texts: an array, or one text. */
export const texts = (v: unknown): Array<string> | undefined =>
  Array.isArray(v) ?
    v.map(text).filter((t): t is string => t !== undefined)
    : v === undefined || v === null ?
    undefined
    : [text(v)!]

/**
 * A decoding transform from whatever a model answered (any JSON) to `strict`: `normalize` reads the variants and
 * returns the strict encoded shape, which `strict` then checks as usual (a field still missing is still an error, for
 * the supervisor to repair).
 */
export const lenient = <A, I>(
  strict: Schema.Schema<A, I>,
  normalize: (answer: unknown) => unknown
): Schema.Schema<A, unknown> =>
  Schema.transformOrFail(Schema.Unknown, strict, {
    strict: false,
    decode: (u) => ParseResult.succeed(normalize(u)),
    encode: (i) => ParseResult.succeed(i)
  })

/** The object a model wrapped its answer in, when it did ({"result": {...}}, {"output": {...}}). */
export const unwrap = (answer: unknown, ...expected: ReadonlyArray<string>): unknown => {
  if (!isRecord(answer)) return answer
  if (expected.some((k) => field(answer, k) !== undefined)) return answer
  const keys = Object.keys(answer)
  return keys.length === 1 && isRecord(answer[keys[0]!]) ? answer[keys[0]!] : answer
}

/** Drops undefined fields (what the strict schema then reports as missing, by name). */
export const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
