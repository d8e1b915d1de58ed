/**
 * An agent's definition checked before it is saved or run: its shape (each fault with its field), its tools against
 * the tools there are, its output schema as a run would take it. A fault is an INVALID_AGENT naming the field.
 */
import { Effect, Either, Schema } from "effect"
import { prepareOutputSchema } from "../convergence/OutputSchema.js"
import { formatIssues } from "../support/ParseIssues.js"
import { AGENT_NAME, AGENT_TOOL_ENTRY, AgentDefinition, InvalidAgentError } from "./Agent.js"

/** `fs.*` matches `fs.read`; a name without `*` matches itself. */
export const globMatches = (glob: string, name: string) =>
  !glob.includes("*")
    ? glob === name
    : new RegExp(`^${glob.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`).test(name)

/** The tools an agent's entries name among those there are (its `agent:` entries apart). */
export const toolsMatching = (entries: ReadonlyArray<string>, available: ReadonlyArray<string>) =>
  available.filter((t) => entries.some((e) => !e.startsWith(AGENT_TOOL_ENTRY) && globMatches(e, t)))

/** The agents an agent calls as tools (its `agent:<name>` entries). */
export const calledAgents = (entries: ReadonlyArray<string> | undefined) =>
  (entries ?? []).flatMap((e) => (e.startsWith(AGENT_TOOL_ENTRY) ? [e.slice(AGENT_TOOL_ENTRY.length)] : []))

const invalid = (message: string) => Effect.fail(new InvalidAgentError({ message }))

/** Decodes and checks a definition; `available`: the tools a run could be offered now. */
export const checkDefinition = (raw: unknown, available: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const decoded = Schema.decodeUnknownEither(AgentDefinition)(raw, { onExcessProperty: "error", errors: "all" })
    if (Either.isLeft(decoded)) return yield* invalid(formatIssues(decoded.left, 5))
    const definition = decoded.right
    for (const [i, entry] of (definition.tools ?? []).entries()) {
      if (entry.startsWith(AGENT_TOOL_ENTRY)) {
        if (!AGENT_NAME.test(entry.slice(AGENT_TOOL_ENTRY.length))) {
          return yield* invalid(`tools.${i}: "${entry}" names no agent (agent:<name>)`)
        }
      } else if (!available.some((t) => globMatches(entry, t))) {
        return yield* invalid(`tools.${i}: no tool matches "${entry}" (available: ${available.join(", ")})`)
      }
    }
    for (const [i, t] of (definition.approvalTools ?? []).entries()) {
      if (t !== "*" && !available.includes(t)) return yield* invalid(`approvalTools.${i}: no tool ${t}`)
    }
    if (definition.outputSchema !== undefined) {
      const checked = prepareOutputSchema(definition.outputSchema, undefined)
      if (!checked.ok) return yield* invalid(`outputSchema: ${checked.refusal.message}`)
    }
    return definition
  })
