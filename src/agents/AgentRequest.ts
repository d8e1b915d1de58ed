/**
 * A request that names an agent, made into the run's input before it is decoded: `agent: "math"` or `"math@2"`
 * resolved as the caller sees it (AGENT_NOT_FOUND: nothing stored, nothing sent), an agent given inline (the
 * library) checked as a saved one would be, then its definition applied (agents/AgentInput).
 */
import { Effect, Either, Schema } from "effect"
import { fieldOf, recordOf } from "../support/Fields.js"
import { formatIssues } from "../support/ParseIssues.js"
import { AgentNotFoundError, InlineAgent, InvalidAgentError, ResolvedAgent } from "./Agent.js"
import { checkDefinition } from "./AgentChecks.js"
import { applyAgent } from "./AgentInput.js"
import * as AgentModels from "./AgentModels.js"
import type { Service as AgentsService } from "./Agents.js"

/** The tool names a run may name: the registry's and the operator's remote A2A agents'. */
export const runToolNames = (names: ReadonlyArray<string>, agents: AgentsService | undefined) =>
  agents === undefined ? names : [...names, ...agents.remoteTools.map((t) => t.name)]

/** An agent given as a value: `{ name, version?, definition }` (as a run holds one) or `{ name, …definition }`. */
const inlineAgent = (value: unknown, available: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const held = fieldOf(value, "definition") !== undefined
    const decoded = held
      ? Schema.decodeUnknownEither(ResolvedAgent)(value, { onExcessProperty: "error", errors: "all" })
      : Either.map(
        Schema.decodeUnknownEither(InlineAgent)(value, { onExcessProperty: "error", errors: "all" }),
        ({ name, ...definition }) => ({ name, definition })
      )
    if (Either.isLeft(decoded)) {
      return yield* new InvalidAgentError({ message: `agent: ${formatIssues(decoded.left, 5)}` })
    }
    const definition = yield* checkDefinition(
      Schema.encodeSync(ResolvedAgent.fields.definition)(decoded.right.definition),
      available
    )
    return { ...decoded.right, definition } satisfies ResolvedAgent
  })

/** The request with its agent applied (as given when it names none). */
export const agentRequest = (
  rawInput: unknown,
  agents: AgentsService | undefined,
  registryNames: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    const request = recordOf(rawInput)
    if (request === undefined || request.agent === undefined || request.agent === null) return rawInput
    const available = runToolNames(registryNames, agents)
    const userId = typeof request.userId === "string" ? request.userId : undefined
    const agent = typeof request.agent === "string"
      ? agents === undefined
        ? yield* new AgentNotFoundError({ agent: request.agent })
        : yield* agents.resolve(userId, request.agent)
      : yield* inlineAgent(request.agent, available)
    // a model that cannot be made is refused before anything is stored
    if (agent.definition.model !== undefined) yield* AgentModels.modelOf(agents, agent.definition.model)
    return yield* applyAgent(agent, request, available)
  })
