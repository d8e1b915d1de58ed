/**
 * What a run of an agent runs with: the agent's model (its definition's, as the run recorded it), and the tools its
 * definition adds — the operator's remote A2A agents and the agents it calls (run/ChildRuns).
 */
import { Effect } from "effect"
import type { AgentModel, ResolvedAgent } from "../agents/Agent.js"
import { calledAgents } from "../agents/AgentChecks.js"
import * as AgentModels from "../agents/AgentModels.js"
import type { Service as AgentsService } from "../agents/Agents.js"
import { InvalidRunInputError } from "../domain/Errors.js"
import type * as BudgetGuard from "../kernel/BudgetGuard.js"
import type * as LanguageModel from "../llm/LanguageModel.js"
import type { Tool } from "../tools/ToolRegistry.js"
import { agentTool, type ChildRunner, type Lineage, missingAgentTool } from "./ChildRuns.js"
import { resolvedAgentOf, type RunTaskInput } from "./RunInput.js"

/** What an agent adds to a run's capabilities. */
export interface AgentCaps {
  readonly model: LanguageModel.Service
  readonly lineage: Lineage
  /** The tools the run adds to the registry's, given its guard (an agent's call reserves from it). */
  readonly runTools: (guard: BudgetGuard.BudgetGuard) => ReadonlyArray<Tool>
}

const modelOf = (agents: AgentsService | undefined, spec: AgentModel) =>
  AgentModels.modelOf(agents, spec).pipe(
    Effect.mapError((e) => new InvalidRunInputError({ message: `the agent's ${e.message}` }))
  )

/** The agents the run's agent calls, each as the run's user sees it now (undefined: there is none). */
const calledOf = (agents: AgentsService | undefined, agent: ResolvedAgent | undefined, userId: string | undefined) =>
  Effect.forEach(calledAgents(agent?.definition.tools), (name) =>
    agents === undefined
      ? Effect.succeed({ name, agent: undefined })
      : agents.resolve(userId, name).pipe(
        Effect.map((a): { name: string; agent: ResolvedAgent | undefined } => ({ name, agent: a })),
        Effect.orElseSucceed(() => ({ name, agent: undefined }))
      ))

/** The model, lineage and tools of a run of `input` (as registered). */
export const agentCaps = (
  base: { readonly model: LanguageModel.Service; readonly agents: AgentsService | undefined },
  input: RunTaskInput,
  run: { readonly runId: string; readonly lineage: Lineage; readonly children: ChildRunner | undefined }
) =>
  Effect.gen(function*() {
    const agent = resolvedAgentOf(input)
    const model = agent?.definition.model !== undefined
      ? yield* modelOf(base.agents, agent.definition.model)
      : base.model
    const called = run.children === undefined ? [] : yield* calledOf(base.agents, agent, input.userId)
    const runTools = (guard: BudgetGuard.BudgetGuard): ReadonlyArray<Tool> => [
      ...base.agents?.remoteTools ?? [],
      ...called.map(({ agent: a, name }) =>
        a === undefined || run.children === undefined ? missingAgentTool(name) : agentTool(a, {
          runId: run.runId,
          userId: input.userId,
          depth: run.lineage.depth,
          guard,
          children: run.children
        })
      )
    ]
    return { model, lineage: run.lineage, runTools } satisfies AgentCaps
  })
