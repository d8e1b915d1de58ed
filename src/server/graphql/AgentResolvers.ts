import { Effect, Option } from "effect"
import type { AgentVersion } from "../../agents/Agent.js"
import { type AgentEntry, Agents } from "../../agents/Agents.js"
import { RunManager } from "../../runs/RunManager.js"
import type { RunModel } from "../../runs/RunModel.js"
import { fieldOf } from "../../support/Fields.js"
import type * as G from "./generated/graphql.js"
import type { GraphQLContext } from "./GraphQLContext.js"

type Run = <A, E>(ctx: GraphQLContext, effect: Effect.Effect<A, E, any>) => Promise<A>

/** GraphQL leaves absent optional inputs as null; a definition wants them absent. */
const present = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(present)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(
      Object.entries(value).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, present(v)])
    )
    : value

/** An agent as the API's Agent type shows it (its versions: those given, else its own). */
export const agentView = (a: AgentVersion | AgentEntry) => {
  const d = a.definition
  return {
    name: a.name,
    version: a.version,
    createdAt: a.createdAt.toISOString(),
    owner: a.owner === "" ? null : a.owner,
    description: d.description ?? null,
    instructions: d.instructions ?? null,
    tools: d.tools ? [...d.tools] : null,
    model: d.model ? { ...d.model, byPhase: d.model.byPhase ?? null } : null,
    mode: d.mode ?? null,
    budget: d.budget ?? null,
    outputSchema: d.outputSchema ?? null,
    approvalTools: d.approvalTools ? [...d.approvalTools] : null,
    memory: d.memory ?? null,
    guardrails: d.guardrails ?? null,
    versions: "versions" in a
      ? a.versions.map((v) => ({ version: v.version, createdAt: v.createdAt.toISOString() }))
      : [{ version: a.version, createdAt: a.createdAt.toISOString() }]
  }
}

export const agentQueries = (run: Run): Pick<G.QueryResolvers, "agents" | "agent"> => ({
  agents: (_, __, ctx) =>
    run(
      ctx,
      Effect.flatMap(Agents, (agents) => agents.list(ctx.userId)).pipe(Effect.map((as) => as.map(agentView)))
    ),
  agent: (_, { name }, ctx) =>
    run(
      ctx,
      Effect.flatMap(Agents, (agents) => agents.get(ctx.userId, name)).pipe(
        Effect.map(Option.match({ onNone: () => null, onSome: agentView }))
      )
    )
})

export const agentMutations = (run: Run): Pick<G.MutationResolvers, "saveAgent" | "deleteAgent"> => ({
  saveAgent: (_, { input }, ctx) =>
    run(
      ctx,
      Effect.gen(function*() {
        const agents = yield* Agents
        const { name, ...definition } = input
        yield* agents.save(ctx.userId, name, present(definition))
        return agentView(Option.getOrThrow(yield* agents.get(ctx.userId, name)))
      })
    ),
  deleteAgent: (_, { name }, ctx) => run(ctx, Effect.flatMap(Agents, (agents) => agents.remove(ctx.userId, name)))
})

/** A run's agent and its place among runs calling agents, from its first event (and the store, for its children). */
export const runAgentFields = (run: Run): Pick<G.RunResolvers, "agent" | "parentRunId" | "children"> => ({
  agent: (r: RunModel) => {
    const agent = r.record.started?.agent
    return agent ? { name: agent.name, version: agent.version ?? null } : null
  },
  parentRunId: (r: RunModel) => r.record.started?.parentRunId ?? null,
  children: (r: RunModel, _: unknown, ctx: GraphQLContext) =>
    run(
      ctx,
      // from the rows alone (the agent's version is in the child's stored input): no child's events are read
      Effect.map(Effect.flatMap(RunManager, (m) => m.list({ parentRunId: r.id, first: 100 })), (page) =>
        [...page.runs].reverse().map((row) => {
          const version = fieldOf(fieldOf(row.input, "agent"), "version")
          return {
            id: row.id,
            status: row.status,
            agent: row.agent === null
              ? null
              : { name: row.agent, version: typeof version === "number" ? version : null }
          }
        }))
    )
})
