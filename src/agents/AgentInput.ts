/**
 * A request to run an agent made into the run's input: the agent's definition gives what the request leaves out, and
 * bounds what it gives — a tool outside the agent's tools, a cap above the agent's, memory the agent turned off, an
 * output schema other than the agent's are AGENT_OVERRIDE naming the field, nothing stored. Instructions add up (the
 * agent's first: a client's system text comes after the operator's); the agent's guardrails are the run's with the
 * server's and its own (run/InputGuard runGuardrails).
 */
import { Effect, Schema } from "effect"
import { recordOf } from "../support/Fields.js"
import { AgentOverrideError, agentToolName, ResolvedAgent } from "./Agent.js"
import { calledAgents, toolsMatching } from "./AgentChecks.js"

/** The tools a run of the agent offers (undefined: every tool), its `agent:` entries as the tools `agent.<name>`. */
export const agentTools = (agent: ResolvedAgent, available: ReadonlyArray<string>) => {
  const entries = agent.definition.tools
  if (entries === undefined) return undefined
  return [...toolsMatching(entries, available), ...calledAgents(entries).map(agentToolName)]
}

type Raw = Record<string, unknown>

const joined = (a: string | undefined, b: unknown) =>
  a === undefined ? b : typeof b === "string" && b.trim() !== "" ? `${a}\n\n${b}` : a

const override = (agent: ResolvedAgent, field: string, reason: string) =>
  Effect.fail(new AgentOverrideError({ agent: agent.name, field, reason }))

/** The budget: the agent's caps, each lowered (never raised) by the request's. */
const budgetOf = (agent: ResolvedAgent, request: unknown) =>
  Effect.gen(function*() {
    const caps = Object.entries(agent.definition.budget ?? {}).filter(([, v]) => v !== undefined)
    const asked = recordOf(request) ?? {}
    for (const [cap, mine] of caps) {
      const theirs = asked[cap]
      if (typeof theirs === "number" && theirs > mine) {
        return yield* override(agent, `budget.${cap}`, `${theirs} is above the agent's cap ${mine}`)
      }
    }
    const merged = { ...Object.fromEntries(caps), ...asked }
    return Object.keys(merged).length > 0 ? merged : undefined
  })

/** The run's input for `request` to `agent` (the request as given, before it is decoded). */
export const applyAgent = (agent: ResolvedAgent, request: Raw, available: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const d = agent.definition
    const offered = agentTools(agent, available)
    const asked = request.tools
    if (offered !== undefined && Array.isArray(asked)) {
      const outside = asked.find((t) => !offered.includes(String(t)))
      if (outside !== undefined) {
        return yield* override(agent, "tools", `${outside} is not one of the agent's tools (${offered.join(", ")})`)
      }
    }
    if (d.memory === false && request.memory === true) {
      return yield* override(agent, "memory", "the agent keeps no memory across runs")
    }
    if (
      d.outputSchema !== undefined && request.outputSchema !== undefined &&
      JSON.stringify(request.outputSchema) !== JSON.stringify(d.outputSchema)
    ) {
      return yield* override(agent, "outputSchema", "the agent answers in its own output schema")
    }
    const budget = yield* budgetOf(agent, request.budget)
    const approvalTools = [
      ...new Set([...d.approvalTools ?? [], ...(Array.isArray(request.approvalTools) ? request.approvalTools : [])])
    ]
    const merged: Raw = {
      ...request,
      agent: Schema.encodeSync(ResolvedAgent)(agent),
      ...(d.mode !== undefined && request.mode === undefined ? { mode: d.mode } : {}),
      ...(offered !== undefined && asked === undefined ? { tools: offered } : {}),
      ...(budget !== undefined ? { budget } : {}),
      ...(approvalTools.length > 0 ? { approvalTools } : {}),
      ...(d.memory !== undefined && request.memory === undefined ? { memory: d.memory } : {}),
      ...(d.webhook !== undefined && request.webhook === undefined ? { webhook: d.webhook } : {}),
      ...(d.onBusy !== undefined && request.onBusy === undefined ? { onBusy: d.onBusy } : {}),
      ...(d.outputSchema !== undefined ? { outputSchema: d.outputSchema } : {})
    }
    const instructions = joined(d.instructions, request.instructions)
    if (instructions !== undefined) merged.instructions = instructions
    return merged
  })
