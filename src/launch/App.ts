import { Config, type ConfigError, Context, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import * as Aeon from "../Aeon.js"
import * as Agents from "../agents/Agents.js"
import { type ClusterConfig, clusterConfig, ClusterNeedsPostgresError } from "../cluster/ClusterConfig.js"
import * as EventNotifications from "../cluster/EventNotifications.js"
import { DEFAULT_MAX_BODY_BYTES } from "../domain/Attachment.js"
import { type Settings, settingsLayerConfig, WebhookSettings } from "../domain/Webhook.js"
import type { LanguageModel } from "../llm/LanguageModel.js"
import * as RunManager from "../runs/RunManager.js"
import { scheduler } from "../runs/Scheduler.js"
import { parseKeys } from "../server/Security.js"
import * as Server from "../server/Server.js"
import * as Database from "../store/Database.js"
import { Notifications } from "../store/Notifications.js"
import type { RunStore } from "../store/RunStore.js"
import { version } from "../support/PackageFiles.js"
import * as Delivery from "../webhooks/Delivery.js"

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
    Config.withDescription("Largest request body accepted (the default takes 10 attachments of 5 MB, as base64)"),
    Config.withDefault(DEFAULT_MAX_BODY_BYTES)
  ),
  allowedHosts: Config.string("AEON_ALLOWED_HOSTS").pipe(
    Config.withDescription(
      "comma-separated host names besides localhost that a server without API keys answers on /mcp"
    ),
    Config.withDefault(""),
    Config.map((s) => s.split(",").map((h) => h.trim().toLowerCase()).filter(Boolean))
  ),
  advertisedUrl: Config.string("AEON_ADVERTISED_URL").pipe(
    Config.withDescription(
      "How the other processes sharing the PostgreSQL store reach this server (answers and cancellations of the runs " +
        "it executes): its base URL; default: where it listens (an address of all interfaces: 127.0.0.1)"
    ),
    Config.option
  ),
  shutdownTimeoutMs: Config.integer("AEON_SHUTDOWN_TIMEOUT_MS").pipe(
    Config.withDescription("How long a shutdown waits for tool calls in progress"),
    Config.withDefault(10_000)
  )
})
export type ServerConfig = Config.Config.Success<typeof serverConfig>

export { version }

/**
 * The engine a server runs: its capabilities, tools and model (Aeon.layer's; tracing, an approval policy and call
 * recording are optional).
 */
export type EngineLayer = Layer.Layer<
  Layer.Layer.Success<ReturnType<typeof Aeon.layerWithTools>> | LanguageModel,
  Layer.Layer.Error<typeof Aeon.layer>
>
/** The store a server keeps runs in (Database.layer's services). */
export type StoreLayer = Layer.Layer<
  Layer.Layer.Success<typeof Database.layerConfig>,
  Layer.Layer.Error<typeof Database.layerConfig>
>

/**
 * Plain servers sharing PostgreSQL follow each other's runs as a cluster's runners do: on the store's notifications
 * (cluster/EventNotifications), so a subscriber on one server gets a run executing on another live to its end. The
 * embedded store has one server and no notifications: a run is followed where it executes.
 */
const followingElsewhere = <A, E, R>(manager: Layer.Layer<A, E, R>) =>
  Layer.unwrapEffect(
    Effect.map(Effect.serviceOption(Notifications), (notifications): Layer.Layer<A, E, R | RunStore> =>
      Option.isSome(notifications) && notifications.value.listening
        ? manager.pipe(Layer.provide(
          EventNotifications.following.pipe(
            Layer.provide(Layer.succeed(Notifications, notifications.value))
          )
        ))
        : manager)
  )

/**
 * Everything the server runs on: engine, store, run manager; on a cluster (`cluster`), the manager between the
 * cluster's sharding (below: where runs are placed) and the run entity's handlers (above: what this runner executes).
 */
export const appLayer = (
  maxConcurrentRuns: number,
  engine: EngineLayer = Aeon.layer,
  database: StoreLayer = Database.layerConfig,
  cluster?: ClusterConfig,
  webhooks: Layer.Layer<WebhookSettings, ConfigError.ConfigError> = settingsLayerConfig
) => {
  const manager = RunManager.layer(maxConcurrentRuns)
  const runs = cluster ?
    Layer.unwrapEffect(
      Effect.map(Effect.promise(() => import("../cluster/Cluster.js")), (c) => c.layer(cluster, manager))
    ) :
    followingElsewhere(manager)
  // the agents after the engine's tools and the store's versions (agents/Agents reads AEON_AGENTS)
  return runs.pipe(
    Layer.provideMerge(Agents.layerConfig),
    Layer.provideMerge(Layer.mergeAll(engine, database, webhooks))
  )
}

/** What a test or an embedding program puts in place of the configured engine, store or cluster settings. */
export interface Layers {
  readonly engine?: EngineLayer
  readonly database?: StoreLayer
  readonly cluster?: Partial<ClusterConfig>
  /** The webhook settings (else AEON_WEBHOOK_*'s). */
  readonly webhooks?: Settings
}

/** How many unfinished runs this server took up when it started. */
export class Resumed extends Context.Tag("aeon/Resumed")<Resumed, number>() {}

/**
 * The whole server as one Layer: engine, store and run manager; the runs a stopped process left unfinished resumed;
 * the GraphQL server listening. Released in the reverse order: runs stop accepting and are interrupted (tool calls
 * finish first, what they emitted is stored; they resume on the next start), then the server closes, then the store.
 */
export const layer = (
  overrides: Partial<ServerConfig> & { readonly mcpConfig?: string | undefined } = {},
  layers: Layers = {}
) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = { ...(yield* serverConfig), ...overrides }
    const dbUrl = yield* Database.databaseConfig
    const cluster = { ...(yield* clusterConfig), ...layers.cluster }
    if (cluster.enabled && Option.isNone(dbUrl.url) && !layers.database) return yield* new ClusterNeedsPostgresError()
    const app = appLayer(
      config.maxConcurrentRuns,
      layers.engine ?? Aeon.layerFor({ mcpFile: overrides.mcpConfig }),
      layers.database,
      cluster.enabled ? cluster : undefined,
      layers.webhooks ? Layer.succeed(WebhookSettings, layers.webhooks) : settingsLayerConfig
    )
    const resumed = Layer.effect(Resumed, Effect.flatMap(RunManager.RunManager, (m) => m.resumeUnfinished))
    const server = Server.layer({
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
      allowedHosts: config.allowedHosts,
      advertisedUrl: Option.getOrUndefined(config.advertisedUrl),
      info: { version, database: Option.isSome(dbUrl.url) ? "postgresql" : `sqlite:${dbUrl.dataDir}` }
    })
    // built after the server, so released before it: runs stop while their subscribers are still connected
    const stopRuns = Layer.scopedDiscard(
      Effect.flatMap(RunManager.RunManager, (m) => Effect.addFinalizer(() => m.shutdown(config.shutdownTimeoutMs)))
    )
    // the webhooks' deliveries made while the server lives (those pending when it stopped: after its next start)
    return stopRuns.pipe(
      Layer.provideMerge(server),
      Layer.provideMerge(Layer.mergeAll(resumed, Delivery.worker, Layer.scopedDiscard(scheduler))),
      Layer.provideMerge(app)
    )
  }))

/** Starts the server on a runtime it owns (the library's and the tests' way in); `stop` releases the layer. */
export const serve = async (
  overrides: Partial<ServerConfig> = {},
  layers: Layers = {}
) => {
  const runtime = ManagedRuntime.make(layer(overrides, layers))
  const { manager, resumed, server } = await runtime.runPromise(
    Effect.all({ server: Server.GraphQLServer, manager: RunManager.RunManager, resumed: Resumed })
  )
  let stopping: Promise<void> | undefined
  /** Stop accepting runs, let tool calls finish, persist, close: unfinished runs resume on the next start. */
  const stop = () => (stopping ??= runtime.dispose())
  return { ...server, runtime, manager, resumed, stop }
}
