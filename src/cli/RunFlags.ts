import { Options } from "@effect/cli"
import { Option, Schema, SchemaAST } from "effect"
import { RunTaskInput } from "../run/RunInput.js"
import { plainJsonSchema } from "../support/JsonSchemas.js"
import { parseDuration } from "./CliError.js"
import { choice } from "./Flags.js"

/**
 * The flags of `aeon run` (and `aeon fork`) that set a field of the run's input. A flag's name is the CLI's (kept
 * stable for scripts); what it takes, what it says in the help and what it sets are the run input's schema's — its
 * type, its description, its path —, and what a value may be is checked by that schema alone, as for GraphQL and
 * MCP. A field gains a flag with one row here.
 */
interface FieldFlag {
  /** The flag, without its dashes. `no-…`: the flag sets its boolean field to false. */
  readonly flag: string
  /** The field it sets, as a path in the run input. */
  readonly field: string
  /** What the help adds to the field's description (an environment variable that bears on it). */
  readonly note?: string
}

/** The budget's caps, which a fork may change too (its deadline is the source run's). */
const BUDGET_FLAGS: ReadonlyArray<FieldFlag> = [
  { flag: "ttl", field: "budget.ttl" },
  { flag: "max-cost-usd", field: "budget.maxCostUsd", note: "AEON_PRICE_TABLE prices models" },
  { flag: "max-tokens", field: "budget.maxTokens" },
  { flag: "max-llm-calls", field: "budget.maxLlmCalls" },
  { flag: "max-steps", field: "budget.maxSteps" }
]

export const FIELD_FLAGS: ReadonlyArray<FieldFlag> = [
  { flag: "agent", field: "agent", note: "NAME or NAME@VERSION" },
  { flag: "mode", field: "mode" },
  { flag: "simple", field: "simpleIterations" },
  { flag: "no-escalate", field: "escalate" },
  { flag: "interactive", field: "interactive" },
  { flag: "dry-run", field: "dryRun", note: "exit 0" },
  { flag: "approve-plan", field: "approvePlan", note: "env AEON_APPROVE_PLAN" },
  { flag: "approval-timeout", field: "approvalTimeoutMs" },
  { flag: "pause-deadline", field: "pauseDeadlineWhileWaiting" },
  { flag: "approve-tools", field: "approvalTools", note: "adds to env AEON_APPROVAL_TOOLS" },
  { flag: "user", field: "userId" },
  { flag: "thread", field: "threadId" },
  { flag: "instructions", field: "instructions" },
  { flag: "tool-outputs", field: "toolOutputs", note: "env AEON_TOOL_OUTPUTS" },
  { flag: "thinking-tokens", field: "thinkingTokens" },
  { flag: "tools", field: "tools" },
  { flag: "parallelism", field: "parallelism" },
  { flag: "answer-matches", field: "criteria.answerMatches" },
  { flag: "output-strict", field: "outputStrict", note: "with --output-schema" },
  { flag: "no-reuse", field: "reusePlans" },
  { flag: "no-memory", field: "memory" },
  { flag: "deadline", field: "budget.deadlineMs" },
  ...BUDGET_FLAGS
]

interface JsonField {
  readonly type?: string
  readonly enum?: ReadonlyArray<string>
  readonly description?: string
  readonly properties?: Record<string, JsonField>
  readonly $ref?: string
  readonly anyOf?: ReadonlyArray<JsonField>
}

const inputSchema = plainJsonSchema(Schema.encodedBoundSchema(RunTaskInput)) as JsonField & {
  readonly $defs?: Record<string, JsonField>
}

/** The field at `path` in the run input's JSON Schema, its `$ref` resolved (its own description kept). */
const fieldAt = (path: string): JsonField => {
  const resolved = (f: JsonField) => {
    const ref = f.$ref?.replace("#/$defs/", "")
    return ref === undefined ? f : { ...inputSchema.$defs?.[ref], ...f }
  }
  let at: JsonField | undefined = inputSchema
  for (const name of path.split(".")) at = at === undefined ? undefined : resolved(at).properties?.[name]
  if (at === undefined) throw new Error(`the run input has no field ${path}`)
  return resolved(at)
}

/** A flag's key in the parsed options: its name in camelCase (`max-cost-usd`: `maxCostUsd`). */
const keyOf = (flag: string) => flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())

/** A field whose value is a duration in milliseconds: the flag takes `30s`, `2m`, … */
const isDuration = (field: string) => field.endsWith("Ms")

/**
 * A top-level field's own description, from its schema (the JSON Schema of a refined or branded field gives its base
 * type's words instead: "an integer", or none).
 */
const ownDescription = (field: string): string | undefined => {
  const ast = Schema.typeSchema(RunTaskInput).ast
  const type = SchemaAST.isTypeLiteral(ast) ? ast.propertySignatures.find((p) => p.name === field)?.type : undefined
  const inner = type !== undefined && SchemaAST.isUnion(type)
    ? type.types.find((t) => !SchemaAST.isUndefinedKeyword(t))
    : type
  return inner === undefined ? undefined : Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(inner))
}

const describe = ({ field, flag, note }: FieldFlag, f: JsonField) => {
  const plain = f.description === undefined || /^an? (integer|number|string)$/.test(f.description)
  const said = (plain ? ownDescription(field) : undefined) ?? f.description ?? field
  const text = isDuration(field)
    ? `${said.replace(" (milliseconds)", "")} (30s, 2m, …)`
    : f.type === "array"
    ? `${said}, comma-separated`
    : said
  const where = [field, note].filter(Boolean).join("; ")
  return flag.startsWith("no-") ? `turns off: ${text} (${where} false)` : `${text} (${where})`
}

/** The option a row makes: its kind from the field's type. */
const optionOf = (row: FieldFlag): Options.Options<unknown> => {
  const f = fieldAt(row.field)
  const described = Options.withDescription(describe(row, f))
  if (f.type === "boolean") return described(Options.boolean(row.flag))
  if (f.enum) return Options.optional(described(choice(row.flag, f.enum.map((v) => v.toLowerCase()))))
  // a field that is text or something else (an agent's name, or its value in the library) takes text here
  const text = f.type === "string" || f.anyOf?.some((t) => t.type === "string") === true
  if (isDuration(row.field) || text || f.type === "array") {
    return Options.optional(described(Options.text(row.flag)))
  }
  return Options.optional(described(f.type === "integer" ? Options.integer(row.flag) : Options.float(row.flag)))
}

const optionsOf = (rows: ReadonlyArray<FieldFlag>) =>
  Object.fromEntries(rows.map((row) => [keyOf(row.flag), optionOf(row)])) as Record<string, Options.Options<unknown>>

/** The options of the run input's fields, keyed as @effect/cli hands their values to the command. */
export const runInputOptions = optionsOf(FIELD_FLAGS)
/**
 * What `aeon chat` takes of them: a turn that only plans (`--dry-run`) is no conversation, and strict output needs an
 * output schema, which a chat's turns do not take; its `--thread` is its own.
 */
export const chatInputOptions = optionsOf(
  FIELD_FLAGS.filter((row) => !["dry-run", "output-strict", "thread"].includes(row.flag))
)
/** The budget's caps, as `aeon fork` takes them. */
export const budgetOptions = optionsOf(BUDGET_FLAGS)

/** A flag's text as its field takes it. */
const valueOf = (row: FieldFlag, text: unknown): unknown => {
  const f = fieldAt(row.field)
  if (f.type === "boolean") return row.flag.startsWith("no-") ? false : true
  if (isDuration(row.field)) return parseDuration(String(text), `--${row.flag}`)
  if (f.enum) return String(text).toUpperCase()
  if (f.type === "array") return String(text).split(",").map((t) => t.trim()).filter(Boolean)
  return text
}

/**
 * What the flags given set in the run input, as a partial input (`{ budget: { ttl: 3 }, interactive: true }`): a
 * boolean flag not given and an optional one absent set nothing. The run input's schema decodes the whole.
 */
export const inputOf = (
  values: Record<string, unknown>,
  rows: ReadonlyArray<FieldFlag> = FIELD_FLAGS
): Record<string, unknown> => {
  const input: Record<string, unknown> = {}
  for (const row of rows) {
    const given = values[keyOf(row.flag)]
    const text = Option.isOption(given) ? Option.getOrUndefined(given) : given === true ? true : undefined
    if (text === undefined) continue
    const path = row.field.split(".")
    const last = path.pop() ?? row.field
    let at = input
    for (const name of path) at = (at[name] ??= {}) as Record<string, unknown>
    at[last] = valueOf(row, text)
  }
  return input
}

/** The budget's caps the flags given set (`aeon fork`). */
export const budgetOf = (values: Record<string, unknown>) =>
  (inputOf(values, BUDGET_FLAGS).budget ?? {}) as Record<string, number>
