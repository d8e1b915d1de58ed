import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import { RunnerAddress } from "@effect/cluster/RunnerAddress"
import * as Sharding from "@effect/cluster/Sharding"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as Rpc from "@effect/rpc/Rpc"
import { Duration, Effect, Layer, Option, Schema } from "effect"
import { ClusterUnavailableError, ForwardedError, type PersonAnswer, RunPlacement } from "../runs/Placement.js"
import * as QueuedSweep from "../runs/QueuedSweep.js"
import { RunManager } from "../runs/RunManager.js"
import { AnswerRpc, OwnerRefused } from "../runs/RunOwners.js"
import { oneServerAtATime } from "../store/Database.js"
import { Notifications } from "../store/Notifications.js"
import { Singletons } from "../support/Background.js"
import { type ClusterConfig, ClusterNeedsPostgresError } from "./ClusterConfig.js"
import * as EventNotifications from "./EventNotifications.js"
import * as SerializedReserve from "./SerializedReserve.js"

/**
 * A run on a cluster: one entity per run, on the runner that owns its shard. `Start` and `Cancel` are persisted
 * (a runner that dies has them delivered again to the one that takes its shards up), keyed by the run (sent twice,
 * kept once). `Answer` carries a person's answer (approval, guidance) to the runner the run waits on.
 */
export const RunEntity = Entity.make("AeonRun", [
  Rpc.make("Start", { payload: { runId: Schema.String }, primaryKey: (p) => p.runId }).annotate(
    ClusterSchema.Persisted,
    true
  ),
  Rpc.make("Cancel", { payload: { runId: Schema.String }, primaryKey: (p) => p.runId }).annotate(
    ClusterSchema.Persisted,
    true
  ),
  // a person waits for the answer: sent to the runner holding the run now, not persisted (retried by the person)
  AnswerRpc
])

/**
 * What the runner does with them: Start runs the run here to its end (resumed from its stored events: a request
 * delivered again after a failure continues the run, only the step in flight repeats); Cancel ends it. Concurrency
 * is unbounded so that Cancel is not queued behind the Start it cancels.
 */
const handlers = RunEntity.toLayer(
  Effect.map(RunManager, (manager) =>
    RunEntity.of({
      Start: ({ payload }) =>
        manager.runHere(payload.runId).pipe(
          Effect.tapErrorCause((cause) => Effect.logError(`run ${payload.runId} could not be taken up`, cause)),
          Effect.orDie
        ),
      Cancel: ({ payload }) => manager.cancelHere(payload.runId).pipe(Effect.orDie),
      Answer: ({ payload }) =>
        manager.answerHere(payload.runId, payload.answer).pipe(
          Effect.mapError((e) => new OwnerRefused({ code: e._tag, text: e.message }))
        )
    })),
  { concurrency: "unbounded" }
)

/** How the other servers reach a run: its entity's messages, through the cluster's storage. */
const placement = (runner: string) =>
  Layer.effect(
    RunPlacement,
    Effect.map(RunEntity.client, (client) => {
      const unavailable = (runId: string) => (e: { readonly _tag: string; readonly message?: string }) =>
        new ClusterUnavailableError({ runId, reason: e.message || e._tag })
      return {
        runner,
        start: (runId: string) =>
          client(runId).Start({ runId }, { discard: true }).pipe(Effect.mapError(unavailable(runId))),
        cancel: (runId: string) => client(runId).Cancel({ runId }).pipe(Effect.mapError(unavailable(runId))),
        answer: (runId: string, answer: PersonAnswer) =>
          client(runId).Answer({ runId, answer }).pipe(
            Effect.mapError((e) =>
              e._tag === "OwnerRefused" ? new ForwardedError({ _tag: e.code, message: e.text }) : unavailable(runId)(e)
            )
          )
      }
    })
  )

/** How this runner shares the shards: its address, its shard locks, how often it polls. */
const shardingConfig = (c: ClusterConfig): Partial<ShardingConfig.ShardingConfig["Type"]> => ({
  runnerAddress: Option.some(RunnerAddress.make({ host: c.runnerHost, port: c.runnerPort })),
  runnerListenAddress: Option.map(
    c.runnerListenHost,
    (host) => RunnerAddress.make({ host, port: c.runnerPort })
  ),
  // locks in a table that expire, not advisory locks: an advisory lock lives as long as its connection, which a
  // frozen or partitioned runner keeps open, so its shards would never move (tested with SIGSTOP)
  shardLockDisableAdvisory: true,
  shardLockExpiration: c.shardLockExpiration,
  shardLockRefreshInterval: c.shardLockRefresh,
  refreshAssignmentsInterval: c.refreshAssignments,
  entityMessagePollInterval: Duration.seconds(2),
  // how long a runner giving shards up (stopping, or rebalancing to a new runner) waits for their handlers to end
  // by themselves before it interrupts them: a stopping runner has already stopped its runs (tool calls finished,
  // events stored), and a moving run is stopped by the interruption, so waiting longer only delays the next owner
  entityTerminationTimeout: Duration.seconds(1),
  entityReplyPollInterval: Duration.millis(100)
})

/** The jobs of one process among all (support/Background.onOneProcess) as the cluster's singletons. */
const singletons = Layer.effect(
  Singletons,
  Effect.map(
    Sharding.Sharding,
    (sharding) => Singletons.of({ register: (name, job) => sharding.registerSingleton(`aeon/${name}`, job) })
  )
)

/** Sharding over @effect/cluster's SQL storage (shard locks: rows that expire) and msgpack over TCP. */
const sharding = (c: ClusterConfig) =>
  NodeClusterSocket.layer({ storage: "sql", shardingConfig: shardingConfig(c) }).pipe(
    Layer.provide(SerializedReserve.layer)
  )

/**
 * The cluster's storage tables, made before sharding starts: its storage built once and let go, one server at a time
 * (on a new database, servers started together would otherwise race to create them, and lose with a defect).
 */
export const storageTables = (c: ClusterConfig) =>
  Layer.effectDiscard(oneServerAtATime(Effect.scoped(Layer.build(
    Layer.merge(SqlMessageStorage.layer, SqlRunnerStorage.layer).pipe(
      Layer.provide(ShardingConfig.layer(shardingConfig(c))),
      Layer.provide(SerializedReserve.layer)
    )
  ))))

/**
 * The cluster's part of a runner, around the run manager: sharding (below it, with the placement it sends through and
 * the follower of runs elsewhere), and the run entity's handlers (above it). `withManager` is the manager's layer.
 */
export const layer = <A, E, R>(c: ClusterConfig, withManager: Layer.Layer<A | RunManager, E, R>) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    // runs elsewhere are followed on PostgreSQL's notifications; SQLite has none
    if (!(yield* Notifications).listening) return yield* new ClusterNeedsPostgresError()
    const base = Layer.mergeAll(
      placement(`${c.runnerHost}:${c.runnerPort}`),
      EventNotifications.following,
      singletons
    ).pipe(Layer.provideMerge(sharding(c).pipe(Layer.provide(storageTables(c)))))
    // runs left QUEUED with no runner (their Start never went): sent again
    const sweep = QueuedSweep.layer({ every: Duration.seconds(10), after: Duration.seconds(30) })
    return Layer.merge(handlers, sweep).pipe(Layer.provideMerge(withManager), Layer.provideMerge(base))
  }))
