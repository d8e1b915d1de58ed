/**
 * An agent: a named, versioned configuration of runs — its instructions, tools, model, mode, budget, output shape,
 * approvals, memory and guardrails. A run of an agent records the whole definition it ran with (its first event and
 * its stored input), so a replay or a fork uses that record, never the agent as it is today.
 */
import { Schema } from "effect"
import { BudgetCaps } from "../domain/Budget.js"
import { RunMode } from "../domain/SimpleIteration.js"
import { WebhookSpec } from "../domain/Webhook.js"
import { GuardrailsSpec } from "../guardrails/GuardrailSpec.js"

const NAME = "[a-z0-9][a-z0-9_-]{0,62}"
export const AGENT_NAME = new RegExp(`^${NAME}$`)

/** Why `name` is not an agent's name, if it is not: the one rule the schema, the API and the file say. */
export const nameRefusal = (name: string) =>
  AGENT_NAME.test(name)
    ? undefined
    : `an agent's name is 1-63 of a-z, 0-9, _ and -, starting with a letter or digit (was "${name}")`

export const AgentName = Schema.String.pipe(Schema.filter((s) => nameRefusal(s) ?? true))

/** A model as AEON_MODELS names one: `{ provider: "openai", model: "gpt-4o-mini" }`, a phase's model as AEON_MODELS_BY_PHASE. */
export const AgentModel = Schema.Struct({
  provider: Schema.Literal("openai", "anthropic", "google", "offline"),
  model: Schema.String.pipe(Schema.filter((s) => /^\S{1,200}$/.test(s) || "model is 1-200 characters, no spaces")),
  /** A model per phase: `{ plan: "openai:gpt-4.1", review: "openai:gpt-4o-mini" }` (each a list as AEON_MODELS). */
  byPhase: Schema.optional(
    Schema.Struct({
      plan: Schema.optional(Schema.String),
      step: Schema.optional(Schema.String),
      review: Schema.optional(Schema.String),
      answer: Schema.optional(Schema.String)
    })
  )
})
export type AgentModel = typeof AgentModel.Type

/** The prefix of a tool entry that names another agent: `agent:research` offers the tool `agent.research`. */
export const AGENT_TOOL_ENTRY = "agent:"
/** The tool through which a run calls another agent (a child run of it). */
export const agentToolName = (agent: string) => `agent.${agent}`
/** The tool through which a run calls a remote A2A agent of the operator's file. */
export const a2aToolName = (agent: string) => `a2a.${agent}`

/** What an agent is (every field but the name optional): what saveAgent takes and a version holds. */
export const AgentDefinition = Schema.Struct({
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
  /** Operator text added to the system prompt of every plan and answer call of its runs (trusted). */
  instructions: Schema.optional(Schema.String.pipe(Schema.maxLength(8000))),
  /** Tool names or globs (`fs.*`), and `agent:<name>`; absent: every tool. */
  tools: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)))),
  model: Schema.optional(AgentModel),
  mode: Schema.optional(RunMode),
  /** Its caps: a request may lower them, never raise them. */
  budget: Schema.optional(
    Schema.extend(BudgetCaps, Schema.Struct({ deadlineMs: Schema.optional(Schema.Int.pipe(Schema.positive())) }))
  ),
  outputSchema: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  approvalTools: Schema.optional(Schema.Array(Schema.String)),
  /** false: its runs recall nothing and leave no memory (a request cannot turn it on). */
  memory: Schema.optional(Schema.Boolean),
  guardrails: Schema.optional(GuardrailsSpec),
  /** Where its runs' events are told, unless a request names its own. */
  webhook: Schema.optional(WebhookSpec),
  /** What a message on a thread of its runs does while a turn runs, unless a request says. */
  onBusy: Schema.optional(Schema.Literal("REJECT", "ENQUEUE", "INTERRUPT"))
})
export type AgentDefinition = typeof AgentDefinition.Type
export type AgentDefinitionEncoded = typeof AgentDefinition.Encoded

/** An agent as a run holds it: its name, the version it ran (none for an agent given inline) and the definition. */
export const ResolvedAgent = Schema.Struct({
  name: AgentName,
  version: Schema.optional(Schema.Int),
  definition: AgentDefinition
})
export type ResolvedAgent = typeof ResolvedAgent.Type

/** An agent given inline to the library: its name and its definition's fields. */
export const InlineAgent = Schema.extend(Schema.Struct({ name: AgentName }), AgentDefinition)

/** A stored version of an agent. */
export interface AgentVersion {
  readonly name: string
  readonly version: number
  readonly owner: string
  readonly createdAt: Date
  readonly definition: AgentDefinition
}

/** A remote A2A agent of the operator's file, offered to runs as the tool `a2a.<name>`. */
export const RemoteAgent = Schema.Struct({
  url: Schema.String.pipe(Schema.filter((s) => /^https?:\/\//.test(s) || "url must be http(s)://…")),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  description: Schema.optional(Schema.String)
})
export type RemoteAgent = typeof RemoteAgent.Type

/** `math` (the latest version) or `math@2`. */
export const parseAgentRef = (ref: string): { readonly name: string; readonly version?: number } | undefined => {
  const m = new RegExp(`^(${NAME})(?:@([1-9]\\d{0,8}))?$`).exec(ref)
  if (!m) return undefined
  return m[2] === undefined ? { name: m[1]! } : { name: m[1]!, version: Number(m[2]) }
}

/** No agent of that name (or of that version) the caller can run: nothing stored, nothing sent. */
export class AgentNotFoundError extends Schema.TaggedError<AgentNotFoundError>()("AGENT_NOT_FOUND", {
  agent: Schema.String
}) {
  override get message() {
    return `no agent ${this.agent}: aeon agents lists them`
  }
}

/** A request asked for more than its agent allows (a tool outside its tools, a larger cap): nothing stored. */
export class AgentOverrideError extends Schema.TaggedError<AgentOverrideError>()("AGENT_OVERRIDE", {
  agent: Schema.String,
  field: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.field}: ${this.reason} (agent ${this.agent})`
  }
}

/** An agent's definition that cannot be saved, naming the field. */
export class InvalidAgentError extends Schema.TaggedError<InvalidAgentError>()("INVALID_AGENT", {
  message: Schema.String
}) {}
