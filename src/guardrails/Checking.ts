/**
 * One point's guardrails on one text (or a JSON value's texts): each in order on what the one before left, a
 * redaction's placeholders shared by the whole run, the first block ending the check. What a trigger records is never
 * the matched text: its guardrail, action, kinds and placeholders.
 */
import { Effect } from "effect"
import { findMatches } from "./Detectors.js"
import { type GuardrailContext, type GuardrailEntry, isCustom, type Verdict } from "./Guardrail.js"
import { type GuardrailAction, type GuardrailPoint, type GuardrailSpec, specName } from "./GuardrailSpec.js"

export interface Trigger {
  readonly point: GuardrailPoint
  readonly guardrail: string
  readonly action: GuardrailAction
  readonly kinds: ReadonlyArray<string>
  /** The placeholders this trigger put in (`<EMAIL_1>`); none for a block or a cut. */
  readonly placeholders: ReadonlyArray<string>
  /** A block's reason in words (a built-in's names its kinds, never the text). */
  readonly reason?: string | undefined
}

export interface Checked<A> {
  readonly value: A
  readonly triggers: ReadonlyArray<Trigger>
  /** The trigger that blocked: the value must go no further (what of it is kept holds no built-in's match). */
  readonly blocked?: Trigger | undefined
}

/** A run's placeholders: one per distinct value and kind, numbered per kind; seeded with those its log holds. */
export interface Placeholders {
  readonly of: (kind: string, value: string) => string
}

const PLACEHOLDER = /^<([A-Z_]+)_(\d+)>$/

export const makePlaceholders = (seen: Iterable<string> = []): Placeholders => {
  const counts = new Map<string, number>()
  for (const p of seen) {
    const m = PLACEHOLDER.exec(p)
    if (m) counts.set(m[1]!, Math.max(counts.get(m[1]!) ?? 0, Number(m[2])))
  }
  const given = new Map<string, string>()
  return {
    of: (kind, value) => {
      const label = kind.toUpperCase()
      const key = `${label}\u0000${value}`
      const known = given.get(key)
      if (known) return known
      const n = (counts.get(label) ?? 0) + 1
      counts.set(label, n)
      const placeholder = `<${label}_${n}>`
      given.set(key, placeholder)
      return placeholder
    }
  }
}

const unique = (xs: ReadonlyArray<string>) => [...new Set(xs)].sort()

/**
 * A built-in guardrail on a text: unchanged (undefined), or its matches replaced — a block's too, so that what a
 * caller keeps of a blocked text holds no match.
 */
const builtIn = (
  spec: GuardrailSpec,
  point: GuardrailPoint,
  text: string,
  placeholders: Placeholders
): { readonly text: string; readonly trigger: Trigger } | undefined => {
  const matches = findMatches(spec, text)
  if (matches.length === 0) return undefined
  const kinds = unique(matches.map((m) => m.kind))
  const guardrail = specName(spec)
  const what = spec.type === "maxLength" ? `is longer than ${spec.chars} characters` : `holds ${kinds.join(", ")}`
  const reason = spec.action === "block"
    ? `guardrail ${guardrail} blocked the ${point.replace("_", " ")}: it ${what}`
    : undefined
  if (spec.type === "maxLength") {
    return {
      text: `${text.slice(0, spec.chars)}…`,
      trigger: { point, guardrail, action: spec.action, kinds, placeholders: [], reason }
    }
  }
  let out = ""
  let from = 0
  const put: Array<string> = []
  for (const m of matches) {
    const placeholder = placeholders.of(m.kind, text.slice(m.start, m.end))
    put.push(placeholder)
    out += text.slice(from, m.start) + placeholder
    from = m.end
  }
  return {
    text: out + text.slice(from),
    trigger: { point, guardrail, action: spec.action, kinds, placeholders: unique(put), reason }
  }
}

const fromVerdict = (
  name: string,
  point: GuardrailPoint,
  text: string,
  verdict: Verdict
): { readonly text: string; readonly trigger: Trigger } | undefined => {
  switch (verdict._tag) {
    case "allow":
      return undefined
    case "redact":
      return verdict.text === text ? undefined : {
        text: verdict.text,
        trigger: { point, guardrail: name, action: "redact", kinds: ["custom"], placeholders: [] }
      }
    case "block":
      return {
        text,
        trigger: {
          point,
          guardrail: name,
          action: "block",
          kinds: ["custom"],
          placeholders: [],
          reason: `guardrail ${name} blocked the ${point.replace("_", " ")}: ${verdict.reason}`
        }
      }
  }
}

/** The guardrails on one text, in order. */
export const checkText = (
  entries: ReadonlyArray<GuardrailEntry>,
  text: string,
  placeholders: Placeholders,
  context: GuardrailContext
): Effect.Effect<Checked<string>> =>
  Effect.gen(function*() {
    let current = text
    const triggers: Array<Trigger> = []
    for (const entry of entries) {
      const outcome = isCustom(entry)
        ? fromVerdict(entry.name, context.point, current, yield* entry.check(current, context))
        : builtIn(entry, context.point, current, placeholders)
      if (!outcome) continue
      triggers.push(outcome.trigger)
      current = outcome.text
      if (outcome.trigger.action === "block") return { value: current, triggers, blocked: outcome.trigger }
    }
    return { value: current, triggers }
  })

/**
 * The guardrails on a JSON value (a tool's input or result, an answer's data): a string as a text; otherwise the
 * built-in ones on each string in it (so the value stays of its shape), one's own on its JSON text (read back as
 * JSON when it redacts).
 */
export const checkValue = (
  entries: ReadonlyArray<GuardrailEntry>,
  value: unknown,
  placeholders: Placeholders,
  context: GuardrailContext
): Effect.Effect<Checked<unknown>> =>
  Effect.gen(function*() {
    if (typeof value === "string") return yield* checkText(entries, value, placeholders, context)
    let current = value
    const triggers: Array<Trigger> = []
    for (const entry of entries) {
      const checked = isCustom(entry)
        ? yield* Effect.map(checkText([entry], JSON.stringify(current) ?? "", placeholders, context), (c) => ({
          ...c,
          value: c.triggers.length > 0 && !c.blocked ? parsedOr(c.value) : current
        }))
        : leafwise(entry, current, placeholders, context.point)
      triggers.push(...checked.triggers)
      if (checked.blocked) return { value: checked.value, triggers, blocked: checked.blocked }
      current = checked.value
    }
    return { value: current, triggers }
  })

/** The value with `f` applied to every string in it, at any depth (its shape kept). */
const mapStrings = (value: unknown, f: (text: string) => string): unknown => {
  const walk = (v: unknown): unknown =>
    typeof v === "string"
      ? f(v)
      : Array.isArray(v)
      ? v.map(walk)
      : v !== null && typeof v === "object"
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
      : v
  return walk(value)
}

const parsedOr = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text // one's own redaction broke the JSON: its text is the value
  }
}

/** A built-in guardrail on every string of a value: one trigger for all it found (a length: the JSON text's). */
const leafwise = (
  spec: GuardrailSpec,
  value: unknown,
  placeholders: Placeholders,
  point: GuardrailPoint
): Checked<unknown> => {
  if (spec.type === "maxLength") {
    const text = JSON.stringify(value) ?? ""
    const outcome = builtIn(spec, point, text, placeholders)
    if (!outcome) return { value, triggers: [] }
    if (outcome.trigger.action === "block") return { value, triggers: [outcome.trigger], blocked: outcome.trigger }
    return { value: parsedOr(outcome.text), triggers: [outcome.trigger] }
  }
  const found: Array<Trigger> = []
  const walked = mapStrings(value, (v) => {
    const outcome = builtIn(spec, point, v, placeholders)
    if (!outcome) return v
    found.push(outcome.trigger)
    return outcome.text
  })
  if (found.length === 0) return { value, triggers: [] }
  const merged: Trigger = {
    ...found[0]!,
    kinds: unique(found.flatMap((t) => t.kinds)),
    placeholders: unique(found.flatMap((t) => t.placeholders))
  }
  return merged.action === "block"
    ? { value: walked, triggers: [merged], blocked: merged }
    : { value: walked, triggers: [merged] }
}

/**
 * What a record may keep of a text or a value the guardrails check elsewhere: every built-in guardrail's matches
 * replaced by the run's placeholders, blocking ones too (a length is no secret: not cut). One's own guardrails are
 * not asked again here (a model-based one would be a second call).
 */
export function scrub<A>(entries: ReadonlyArray<GuardrailEntry>, value: A, placeholders: Placeholders): A
export function scrub(entries: ReadonlyArray<GuardrailEntry>, value: unknown, placeholders: Placeholders): unknown {
  const specs = entries.filter((e): e is GuardrailSpec => !isCustom(e) && e.type !== "maxLength")
  return specs.length === 0 ?
    value :
    mapStrings(value, (v) => specs.reduce((text, spec) => builtIn(spec, "output", text, placeholders)?.text ?? text, v))
}
