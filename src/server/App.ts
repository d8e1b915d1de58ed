import { Config, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import * as Aeon from "../Aeon.js"
import * as Database from "../store/Database.js"
import { version } from "../support/PackageFiles.js"
import * as RunManager from "./RunManager.js"
import { parseKeys } from "./Security.js"
import * as Server from "./Server.js"

export const serverConfig = Config.all({
  port: Config.integer("AEON_PORT").pipe(
    Config.withDescription("HTTP port of the GraphQL server"),
    Config.withDefault(4000)
  ),
  host: Config.string("AEON_HOST").pipe(
    Config.withDescription("Interface the server listens on"),
    Config.withDefault("127.0.0.1")
  ),
  apiKey: Config.option(
    Config.redacted("AEON_API_KEY").pipe(Config.withDescription("When set, requests need Authorization: Bearer <key>"))
  ),
  apiKeys: Config.option(
    Config.redacted("AEON_API_KEYS").pipe(
      Config.withDescription("key:userId,…: keys bound to users; a user sees only their own runs")
    )
  ),
  maxConcurrentRuns: Config.integer("AEON_MAX_CONCURRENT_RUNS").pipe(
    Config.withDescription("Runs executing at once; more wait as QUEUED"),
    Config.withDefault(16)
  ),
  maxQueryDepth: Config.integer("AEON_MAX_QUERY_DEPTH").pipe(
    Config.withDescription("Deepest GraphQL selection allowed"),
    Config.withDefault(15)
  ),
  maxQueryCost: Config.integer("AEON_MAX_QUERY_COST").pipe(
    Config.withDescription(
      "Highest cost of one GraphQL operation (graphql-armor: objects 2, scalars 1, ×1.5 per level, × first/last)"
    ),
    Config.withDefault(5_000)
  ),
  maxQueryAliases: Config.integer("AEON_MAX_QUERY_ALIASES").pipe(
    Config.withDescription("Most aliased fields in one GraphQL operation"),
    Config.withDefault(15)
  ),
  maxQueryTokens: Config.integer("AEON_MAX_QUERY_TOKENS").pipe(
    Config.withDescription("Most tokens in one GraphQL document"),
    Config.withDefault(5_000)
  ),
  maxEventsPerQuery: Config.integer("AEON_MAX_EVENTS_PER_QUERY").pipe(
    Config.withDescription("Most run events one GraphQL operation may return (all its Run.events fields together)"),
    Config.withDefault(10_000)
  ),
  maxBodyBytes: Config.integer("AEON_MAX_BODY_BYTES").pipe(
    Config.withDescription("Largest request body accepted"),
    Config.withDefault(1_000_000)
  ),
  shutdownTimeoutMs: Config.integer("AEON_SHUTDOWN_TIMEOUT_MS").pipe(
    Config.withDescription("How long a shutdown waits for tool calls in progress"),
    Config.withDefault(10_000)
  )
})
export type ServerConfig = Config.Config.Success<typeof serverConfig>

export { version }

/** Everything the server runs on: engine, store, run manager. */
export const appLayer = (
  maxConcurrentRuns: number,
  engine: Layer.Layer<any, any> = Aeon.layer,
  database: Layer.Layer<any, any> = Database.layerConfig
) => RunManager.layer(maxConcurrentRuns).pipe(Layer.provideMerge(Layer.mergeAll(engine, database)))

/** Starts the server with a runtime it owns: recovers unfinished runs, listens, and shuts down cleanly. */
export const serve = async (
  overrides: Partial<ServerConfig> = {},
  layers: { engine?: Layer.Layer<any, any>; database?: Layer.Layer<any, any> } = {}
) => {
  const config = { ...(await Effect.runPromise(serverConfig)), ...overrides }
  const runtime = ManagedRuntime.make(appLayer(config.maxConcurrentRuns, layers.engine, layers.database))
  const manager = await runtime.runPromise(RunManager.RunManager)
  const dbUrl = await Effect.runPromise(Database.databaseConfig)
  const resumed = await runtime.runPromise(manager.resumeUnfinished)
  const server = await Server.start(runtime, {
    port: config.port,
    host: config.host,
    auth: {
      apiKey: Option.getOrUndefined(Option.map(config.apiKey, Redacted.value)),
      keys: Option.match(config.apiKeys, { onNone: () => new Map(), onSome: (k) => parseKeys(Redacted.value(k)) })
    },
    limits: {
      maxDepth: config.maxQueryDepth,
      maxCost: config.maxQueryCost,
      maxAliases: config.maxQueryAliases,
      maxTokens: config.maxQueryTokens,
      maxEvents: config.maxEventsPerQuery
    },
    maxBodyBytes: config.maxBodyBytes,
    info: { version, database: Option.isSome(dbUrl.url) ? "postgresql" : `sqlite:${dbUrl.dataDir}` }
  })
  let stopping: Promise<void> | undefined
  /** Stop accepting runs, let tool calls finish, persist, close: unfinished runs resume on the next start. */
  const stop = () => (stopping ??= (async () => {
    await runtime.runPromise(manager.shutdown(config.shutdownTimeoutMs))
    await server.close()
    await runtime.dispose()
  })())
  return { ...server, runtime, manager, resumed, stop }
}
