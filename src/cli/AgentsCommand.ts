import { Args, Command } from "@effect/cli"
import { Effect, Layer, Option, Schema } from "effect"
import * as Aeon from "../Aeon.js"
import * as Agents from "../agents/Agents.js"
import * as Database from "../store/Database.js"
import { CliError } from "./CliError.js"
import { handle, json, noted, noteSubcommands } from "./CommandParts.js"
import { operation, serverHoldingDataDir } from "./ViaServer.js"

/**
 * `aeon agents` and `aeon agents show NAME`: the agents a run may name (`aeon run --agent NAME[@V]`) — the operator's
 * file's (AEON_AGENTS) and those saved through the API — from the server holding the data directory, else the store.
 */
const AgentShown = Schema.Struct({
  name: Schema.String,
  version: Schema.Number,
  description: Schema.NullOr(Schema.String),
  instructions: Schema.NullOr(Schema.String),
  tools: Schema.NullOr(Schema.Array(Schema.String)),
  mode: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.Struct({ provider: Schema.String, model: Schema.String })),
  budget: Schema.NullOr(Schema.Unknown),
  versions: Schema.Array(Schema.Struct({ version: Schema.Number, createdAt: Schema.String }))
})
type AgentShown = typeof AgentShown.Type
const FIELDS =
  "name version description instructions tools mode model { provider model } budget versions { version createdAt }"

/** The agents as the store holds them (no server holds the data directory), the operator's file loaded first. */
const local = <A, E>(f: (agents: Agents.Service) => Effect.Effect<A, E>) =>
  Effect.flatMap(Agents.Agents, f).pipe(
    Effect.provide(
      Agents.layerConfig.pipe(Layer.provide(Layer.mergeAll(Aeon.layerWithOwnTools(), Database.layerConfig)))
    )
  )

const shown = (a: Agents.AgentEntry): AgentShown => ({
  name: a.name,
  version: a.version,
  description: a.definition.description ?? null,
  instructions: a.definition.instructions ?? null,
  tools: a.definition.tools ?? null,
  mode: a.definition.mode ?? null,
  model: a.definition.model ? { provider: a.definition.model.provider, model: a.definition.model.model } : null,
  budget: a.definition.budget ?? null,
  versions: a.versions.map((v) => ({ version: v.version, createdAt: v.createdAt.toISOString() }))
})

const listAgents = Effect.gen(function*() {
  const server = yield* serverHoldingDataDir
  if (server !== undefined) {
    return (yield* operation(
      server,
      `{ agents { ${FIELDS} } }`,
      {},
      Schema.Struct({ agents: Schema.Array(AgentShown) })
    ))
      .agents
  }
  return yield* local((agents) =>
    Effect.flatMap(
      agents.list(undefined),
      (all) => Effect.forEach(all, (a) => Effect.map(agents.get(undefined, a.name), (e) => shown(Option.getOrThrow(e))))
    )
  )
})

const showAgent = (name: string) =>
  Effect.gen(function*() {
    const server = yield* serverHoldingDataDir
    if (server !== undefined) {
      return (yield* operation(
        server,
        `query($name: String!) { agent(name: $name) { ${FIELDS} } }`,
        { name },
        Schema.Struct({ agent: Schema.NullOr(AgentShown) })
      )).agent
    }
    return yield* local((agents) =>
      Effect.map(agents.get(undefined, name), (e) => Option.getOrNull(Option.map(e, shown)))
    )
  })

const list = Command.make("agents", noted("agents", { json }), (o) =>
  handle(() =>
    Effect.map(listAgents, (agents) => {
      if (o.json) return process.stdout.write(`${JSON.stringify(agents, null, 2)}\n`)
      if (agents.length === 0) return process.stdout.write("no agents (AEON_AGENTS, or saveAgent through the API)\n")
      for (const a of agents) {
        process.stdout.write(
          `${a.name}@${a.version}  ${a.description ?? ""}  (${a.versions.length} version${
            a.versions.length === 1 ? "" : "s"
          })\n`
        )
      }
    })
  ))

const show = Command.make(
  "show",
  noted("agents", { name: Args.text({ name: "name" }).pipe(Args.withDescription("the agent's name")), json }),
  (o) =>
    handle(() =>
      Effect.flatMap(showAgent(o.name), (a) => {
        if (a === null) return Effect.fail(new CliError(`no agent ${o.name} (aeon agents lists them)`))
        if (o.json) return Effect.sync(() => process.stdout.write(`${JSON.stringify(a, null, 2)}\n`))
        const lines = [
          `${a.name}@${a.version}${a.description ? `: ${a.description}` : ""}`,
          `versions: ${a.versions.map((v) => `${v.version} (${v.createdAt})`).join(", ")}`,
          `mode: ${a.mode ?? "as the run asks"}`,
          `model: ${a.model ? `${a.model.provider}:${a.model.model}` : "the server's"}`,
          `tools: ${a.tools ? a.tools.join(", ") : "every tool"}`,
          ...(a.budget ? [`budget: ${JSON.stringify(a.budget)}`] : []),
          ...(a.instructions ? [`instructions: ${a.instructions}`] : [])
        ]
        return Effect.sync(() => process.stdout.write(`${lines.join("\n")}\n`))
      })
    )
).pipe(Command.withDescription("an agent's definition and versions"))

noteSubcommands("agents", ["show"])

export const agentsCommand = list.pipe(
  Command.withDescription("the agents a run may name (aeon run --agent NAME[@VERSION]): names, versions, descriptions"),
  Command.withSubcommands([show])
)
