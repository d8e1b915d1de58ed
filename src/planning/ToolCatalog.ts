import { Schema } from "effect"
import { isRecord } from "../prompts/ModelShapes.js"
import { plainJsonSchema } from "../support/JsonSchemas.js"
import { findExpression } from "../tools/Calculator.js"
import { builtinTools } from "../tools/ToolRegistry.js"
import { stepAction, toolActions } from "../validation/Actions.js"
import { termsOf, words } from "../validation/Words.js"

/**
 * What a plan prompt carries of the tools (#58): each tool as one short entry — its name, its input's fields with
 * their types, one line of description —, and past a bound only the tools the task needs, ranked by the words the
 * task shares with each tool's name, description and fields (the terms memory recall uses, validation/Words; rarer words weigh more),
 * always with the tools the task names. A task that needs none of Aeon's own tools (when they are all the run has) is
 * planned without the catalog. Deterministic: the same task and tools give the same offer, in the registry's order
 * (a provider's prefix cache keeps working).
 */

/** What the catalog reads of a tool (a ToolRegistry tool). */
export interface CatalogTool {
  readonly name: string
  readonly description: string
  /** An MCP tool's input as its server gave it. */
  readonly inputJsonSchema?: Record<string, unknown> | undefined
  /** A tool written in TypeScript: its input's Effect Schema (its JSON Schema made once per tool). */
  readonly input?: Schema.Schema<any, any> | undefined
}

const inputSchemas = new WeakMap<CatalogTool, Json | undefined>()
/** The tool's input as JSON Schema: its server's, or its Effect Schema's (undefined when it cannot be made). */
const inputOf = (tool: CatalogTool): Json | undefined => {
  if (tool.inputJsonSchema) return tool.inputJsonSchema
  if (!tool.input) return undefined
  if (!inputSchemas.has(tool)) {
    let made: Json | undefined
    try {
      made = plainJsonSchema(Schema.encodedSchema(tool.input))
    } catch {
      made = undefined // a schema with no JSON Schema (a declared type): the entry shows no fields
    }
    inputSchemas.set(tool, made)
  }
  return inputSchemas.get(tool)
}

/**
 * Every tool is offered up to this many tools and this many tokens of entries: the built-ins with a server of a few
 * dozen tools (the reference filesystem server's 14, a code host's 30) are listed whole — about 35 tokens an entry,
 * 1,400 for 40 tools, what 17 tools cost with whole schemas (80 tokens a tool) —; past it the task chooses.
 */
export const CATALOG_BOUND = { tools: 40, tokens: 2_000 }
/** Past the bound: the best-ranked tools offered (besides the ones the task names). */
export const OFFERED = 8
/** A field's description in an entry is cut to this many characters; the tool's to its first sentence, this long. */
const FIELD_DESCRIPTION_CHARS = 60
const DESCRIPTION_CHARS = 160

type Json = Record<string, unknown>

const cut = (text: string, chars: number) => (text.length <= chars ? text : `${text.slice(0, chars - 1).trimEnd()}…`)

/** The first sentence of a description, on one line. */
const oneLine = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim()
  const sentence = flat.match(/^.+?[.!?](?=\s|$)/)?.[0] ?? flat
  return cut(sentence, DESCRIPTION_CHARS)
}

/** A field's type, briefly: `string`, `integer[]`, `"a"|"b"`, `object`. */
const typeOf = (s: unknown): string => {
  if (!isRecord(s)) return "any"
  if (Array.isArray(s.enum)) return s.enum.slice(0, 6).map((v) => JSON.stringify(v)).join("|")
  const t = Array.isArray(s.type) ? s.type.filter((x) => x !== "null").join("|") : s.type
  if (t === "array") return `${typeOf(s.items)}[]`
  if (typeof t === "string") return t
  if (Array.isArray(s.anyOf)) return s.anyOf.map(typeOf).join("|")
  return "any"
}

/** The input's fields: `city: string "the city's name", days?: integer`. */
const fieldsOf = (schema: Json | undefined): string => {
  const properties = schema && isRecord(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema?.required) ? schema.required : []
  return Object.entries(properties).map(([name, s]) => {
    const described = isRecord(s) && typeof s.description === "string" && s.description.trim() !== ""
      ? ` ${JSON.stringify(cut(s.description.replace(/\s+/g, " ").trim(), FIELD_DESCRIPTION_CHARS))}`
      : ""
    return `${name}${required.includes(name) ? "" : "?"}: ${typeOf(s)}${described}`
  }).join(", ")
}

/** A tool as the planner reads it: `weather.forecast(city: string, days?: integer) — Get the forecast for a city.` */
export const entryOf = (tool: CatalogTool): string => {
  const input = inputOf(tool)
  const fields = input ? `(${fieldsOf(input)})` : ""
  return `${tool.name}${fields} — ${oneLine(tool.description)}`
}

/** The entries, a line each. */
export const catalogText = (tools: ReadonlyArray<CatalogTool>): string =>
  tools.length === 0 ? "(none)" : tools.map(entryOf).join("\n")

const roughTokens = (text: string) => Math.ceil(text.length / 4)

/** A tool's words: its name's parts (`crm.contact_create`: crm, contact, create), description and field names. */
const termsOfTool = (tool: CatalogTool): ReadonlySet<string> => {
  const input = inputOf(tool)
  const fields = input && isRecord(input.properties) ? Object.keys(input.properties).join(" ") : ""
  return new Set(termsOf(`${tool.name.replace(/[._-]+/g, " ")} ${tool.description} ${fields.replace(/[._-]+/g, " ")}`))
}

/** Whether the task names the tool: its full name, or its name's parts as words (`weather forecast tool`). */
const names = (task: string, tool: CatalogTool) => {
  const lower = task.toLowerCase()
  const name = tool.name.toLowerCase()
  if (lower.includes(name)) return true
  const spaced = name.replace(/[._-]+/g, " ")
  return spaced.includes(" ") && lower.replace(/[._-]+/g, " ").includes(spaced)
}

export interface Ranked {
  readonly tool: CatalogTool
  readonly score: number
  readonly named: boolean
}

/** The tools by how much of `text` they hold, best first (a tool's name weighs twice; a word few tools hold, more). */
export const rank = (text: string, tools: ReadonlyArray<CatalogTool>): ReadonlyArray<Ranked> => {
  const wanted = termsOf(text)
  const held = tools.map(termsOfTool)
  const nameTerms = tools.map((t) => new Set(termsOf(t.name.replace(/[._-]+/g, " "))))
  const df = new Map(wanted.map((w) => [w, held.filter((h) => h.has(w)).length]))
  return tools.map((tool, i) => {
    const score = wanted.reduce((sum, w) => {
      if (!held[i]!.has(w)) return sum
      const weight = Math.log(1 + tools.length / Math.max(1, df.get(w)!))
      return sum + weight * (nameTerms[i]!.has(w) ? 2 : 1)
    }, 0)
    return { tool, score, named: names(text, tool) }
  }).sort((a, b) => Number(b.named) - Number(a.named) || b.score - a.score)
}

export interface Offer {
  /** The tools the plan prompt lists, in the registry's order. */
  readonly tools: ReadonlyArray<CatalogTool>
  /** The task needs no tool: planned without the catalog (the direct prompt). */
  readonly noTool: boolean
  /** How many tools the run has. */
  readonly total: number
  /** Chosen by the task (past the bound), or every tool. */
  readonly selected: boolean
}

/** Whether a catalog is past the bound (listed whole it would cost the plan prompt too much). */
export const pastBound = (tools: ReadonlyArray<CatalogTool>) =>
  tools.length > CATALOG_BOUND.tools || roughTokens(catalogText(tools)) > CATALOG_BOUND.tokens

const OWN = new Set(builtinTools.map((t) => t.name))

/** The kinds of action the task's words ask for (compute, retrieve, time, …: validation/Actions). */
const kindsAsked = (task: string) =>
  new Set(
    words(task).flatMap((w) => {
      const kind = stepAction(w)
      return kind === undefined ? [] : [kind]
    })
  )

/**
 * Whether a task needs no tool, decided by rule only where the rule knows the tools — Aeon's own (the calculator,
 * memory, the clock): it states no number, names no tool, no tool's words rank, and it asks for no kind of action a
 * tool does ("date", "today": the clock). A run with other tools (an MCP server's, yours) keeps its catalog: a task's
 * words do not always say which of them it needs ("the launch code in the note" needs the file reader).
 */
export const needsNoTool = (task: string, tools: ReadonlyArray<CatalogTool>) => {
  if (!tools.every((t) => OWN.has(t.name)) || findExpression(task) !== undefined || /\d/.test(task)) return false
  const kinds = kindsAsked(task)
  return rank(task, tools).every((r) => r.score === 0 && !r.named) &&
    !tools.some((t) => [...toolActions({ name: t.name, description: t.description })].some((k) => kinds.has(k)))
}

/** Offers made, per tool list (a run's snapshot) and task: a run asks for its offer at each plan call and review. */
const offers = new WeakMap<ReadonlyArray<CatalogTool>, Map<string, Offer>>()

/** What the plan prompt of `task` is offered of `tools` (made once per tool list and task). */
export const offerFor = (task: string, tools: ReadonlyArray<CatalogTool>): Offer => {
  let made = offers.get(tools)
  if (made === undefined) offers.set(tools, made = new Map())
  let offer = made.get(task)
  if (offer === undefined) made.set(task, offer = offerOf(task, tools))
  return offer
}

const offerOf = (task: string, tools: ReadonlyArray<CatalogTool>): Offer => {
  if (needsNoTool(task, tools)) return { tools: [], noTool: true, total: tools.length, selected: true }
  if (!pastBound(tools)) return { tools, noTool: false, total: tools.length, selected: false }
  const ranked = rank(task, tools)
  const arithmetic = findExpression(task) !== undefined
  const chosen = new Set([
    ...ranked.filter((r) => r.named || (arithmetic && r.tool.name === "calculator")).map((r) => r.tool.name),
    ...ranked.filter((r) => !r.named && r.score > 0).slice(0, OFFERED).map((r) => r.tool.name)
  ])
  return { tools: tools.filter((t) => chosen.has(t.name)), noTool: false, total: tools.length, selected: true }
}
