/**
 * The agents a server (or the library) knows: the operator's file (everyone's, owner '') and those saved through the
 * API (with API keys bound to users: the user's own — another user never lists, reads or runs them, and the same name
 * is their own). Each save is the next version; a run names `math` (the latest) or `math@2`.
 */
import { Config, Context, Effect, Layer, Option, Schema } from "effect"
import type * as LanguageModel from "../llm/LanguageModel.js"
import { AgentStore, type Service as AgentStoreService, type StoredAgent } from "../store/AgentStore.js"
import type { StoreError } from "../store/StoreValues.js"
import { type Tool, ToolRegistry } from "../tools/ToolRegistry.js"
import { remoteAgentTool } from "./A2aTools.js"
import {
  AgentDefinition,
  type AgentModel,
  AgentNotFoundError,
  type AgentVersion,
  InvalidAgentError,
  nameRefusal,
  parseAgentRef,
  type RemoteAgent,
  type ResolvedAgent
} from "./Agent.js"
import { checkDefinition } from "./AgentChecks.js"
import * as AgentFile from "./AgentFile.js"
import * as AgentModels from "./AgentModels.js"
import { memoryStore } from "./MemoryAgentStore.js"

/** An agent with its versions (each version's number and when it was saved). */
export interface AgentEntry extends AgentVersion {
  readonly versions: ReadonlyArray<{ readonly version: number; readonly createdAt: Date }>
}

export interface Service {
  /** The latest version of each agent the caller may run (their own over the operator's of the same name). */
  readonly list: (userId: string | undefined) => Effect.Effect<ReadonlyArray<AgentVersion>, StoreError>
  readonly get: (userId: string | undefined, name: string) => Effect.Effect<Option.Option<AgentEntry>, StoreError>
  /** `math` or `math@2`, as the caller sees it: AGENT_NOT_FOUND when there is none. */
  readonly resolve: (
    userId: string | undefined,
    ref: string
  ) => Effect.Effect<ResolvedAgent, AgentNotFoundError | StoreError>
  /** A whole definition, checked (INVALID_AGENT naming the field), as the caller's agent's next version. */
  readonly save: (
    userId: string | undefined,
    name: string,
    definition: unknown,
    /** `ifChanged`: no new version when the latest is equal (the operator's file, read at each start). */
    options?: { readonly ifChanged?: boolean }
  ) => Effect.Effect<AgentVersion, InvalidAgentError | StoreError>
  readonly remove: (userId: string | undefined, name: string) => Effect.Effect<boolean, StoreError>
  /** The model of an agent that names one (built once per model). */
  readonly modelFor: (model: AgentModel) => Effect.Effect<LanguageModel.Service, InvalidAgentError>
  /** The operator's remote A2A agents as the tools `a2a.<name>` (made once: every run offers them). */
  readonly remoteTools: ReadonlyArray<Tool>
}

export class Agents extends Context.Tag("aeon/Agents")<Agents, Service>() {}

const ownerOf = (userId: string | undefined) => userId ?? ""
const ownersFor = (userId: string | undefined) => (userId === undefined || userId === "" ? [""] : [userId, ""])

/** A stored definition (checked when it was saved) as its schema reads it. */
const definitionOf = (s: StoredAgent): AgentDefinition => Schema.decodeUnknownSync(AgentDefinition)(s.definition)

const versionOf = (s: StoredAgent): AgentVersion => ({
  name: s.name,
  version: s.version,
  owner: s.owner,
  createdAt: s.createdAt,
  definition: definitionOf(s)
})

/** The service over a store of versions; `available`: the tool names a definition may name now. */
export const make = (
  store: AgentStoreService,
  available: () => ReadonlyArray<string>,
  remote: Readonly<Record<string, RemoteAgent>> = {}
): Service => {
  const modelFor = AgentModels.cache()
  /** The caller's own versions of the name, else the operator's. */
  const versionsFor = (userId: string | undefined, name: string) =>
    Effect.gen(function*() {
      for (const owner of ownersFor(userId)) {
        const found = yield* store.versions(owner, name)
        if (found.length > 0) return found
      }
      return []
    })
  const remoteTools = Object.entries(remote).map(([name, r]) => remoteAgentTool(name, r))
  const toolNames = () => [...available(), ...remoteTools.map((t) => t.name)]
  return {
    list: (userId) =>
      Effect.map(store.latest(ownersFor(userId)), (rows) => {
        const own = new Set(rows.filter((r) => r.owner !== "").map((r) => r.name))
        return rows.filter((r) => r.owner !== "" || !own.has(r.name)).map(versionOf)
      }),
    get: (userId, name) =>
      Effect.map(versionsFor(userId, name), (versions) => {
        const latest = versions.at(-1)
        return latest === undefined ? Option.none() : Option.some({
          ...versionOf(latest),
          versions: versions.map((v) => ({ version: v.version, createdAt: v.createdAt }))
        })
      }),
    resolve: (userId, ref) =>
      Effect.gen(function*() {
        const parsed = parseAgentRef(ref)
        if (!parsed) return yield* new AgentNotFoundError({ agent: ref })
        const versions = yield* versionsFor(userId, parsed.name)
        const found = parsed.version === undefined
          ? versions.at(-1)
          : versions.find((v) => v.version === parsed.version)
        if (!found) return yield* new AgentNotFoundError({ agent: ref })
        return { name: found.name, version: found.version, definition: definitionOf(found) }
      }),
    save: (userId, name, raw, options) =>
      Effect.gen(function*() {
        const refused = nameRefusal(name)
        if (refused !== undefined) return yield* new InvalidAgentError({ message: `name: ${refused}` })
        const definition = yield* checkDefinition(raw, toolNames())
        if (definition.model !== undefined) yield* modelFor(definition.model)
        return versionOf(yield* store.save(ownerOf(userId), name, definition, options))
      }),
    remove: (userId, name) => store.remove(ownerOf(userId), name),
    modelFor,
    remoteTools
  }
}

/**
 * Saves the operator's agents (everyone's): a definition that changed since its latest stored version becomes a new
 * version; a bad one stops the start, naming the agent and the field.
 */
const loadFile = (service: Service, file: AgentFile.AgentsFile) =>
  Effect.forEach(
    Object.entries(file.agents),
    ([name, raw]) =>
      service.save(undefined, name, raw, { ifChanged: true }).pipe(
        Effect.mapError((e) =>
          e._tag === "INVALID_AGENT"
            ? new AgentFile.AgentsConfigError({ message: `agents file: agents.${name}.${e.message}` })
            : e
        )
      ),
    { discard: true }
  )

/** The agents of a store (the database's, else one in memory) with the operator's loaded into it. */
const withLoaded = (loaded: AgentFile.AgentsFile) =>
  Effect.gen(function*() {
    const tools = yield* ToolRegistry
    const store = Option.getOrElse(yield* Effect.serviceOption(AgentStore), memoryStore)
    const service = make(store, () => tools.names, loaded.a2aAgents)
    yield* loadFile(service, loaded)
    return service
  })

/** `AEON_AGENTS`: the operator's agents file (none: only the agents saved through the API). */
export const layerConfig = Layer.effect(
  Agents,
  Effect.flatMap(
    Config.option(
      Config.string("AEON_AGENTS").pipe(
        Config.withDescription("A JSON file of agents: { agents: { name: { … } }, a2aAgents: { name: { url } } }")
      )
    ),
    (file) =>
      Effect.flatMap(
        Option.isSome(file) ? AgentFile.load(file.value) : Effect.succeed({ agents: {}, a2aAgents: {} }),
        withLoaded
      )
  )
)

/** The library's: these agents (and remote A2A agents), kept in the store when there is one, else in memory. */
export const layer = (
  file: { readonly agents?: Record<string, unknown>; readonly a2aAgents?: Record<string, RemoteAgent> }
) => Layer.effect(Agents, withLoaded({ agents: file.agents ?? {}, a2aAgents: file.a2aAgents ?? {} }))
