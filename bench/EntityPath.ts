import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as SingleRunner from "@effect/cluster/SingleRunner"
import * as Rpc from "@effect/rpc/Rpc"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect, Layer, ManagedRuntime, Redacted, Schema } from "effect"
import { reachable } from "../test/support/process.js"
import { now, percentile } from "./support.js"

/**
 * Row 45: what a run's commands would cost as messages to an entity in every process (#59 asks to measure
 * @effect/cluster's `Entity` with `SingleRunner` against the direct path before making a run one everywhere). An
 * entity whose `Start` is persisted and keyed by its run, as the cluster's run entity is, does nothing when it gets
 * it: what is measured is the message's own path — stored by SqlMessageStorage on PostgreSQL, delivered, its reply
 * stored — per run, sent one at a time (latency) and `concurrent` at a time (CPU per message). The direct path is
 * a call: its figure is the same loop calling the handler.
 */
const Probe = Entity.make("BenchProbe", [
  Rpc.make("Start", { payload: { runId: Schema.String }, primaryKey: (p) => p.runId }).annotate(
    ClusterSchema.Persisted,
    true
  )
])

const probeHandlers = Probe.toLayer(Effect.succeed(Probe.of({ Start: () => Effect.void })), {
  concurrency: "unbounded"
})

const measure = async (send: (i: number) => Promise<unknown>, messages: number, concurrent: number) => {
  const latencies: Array<number> = []
  const cpuBefore = process.cpuUsage()
  const started = now()
  let next = 0
  await Promise.all(Array.from({ length: concurrent }, async () => {
    while (next < messages) {
      const i = next++
      const at = now()
      await send(i)
      latencies.push(now() - at)
    }
  }))
  const cpu = process.cpuUsage(cpuBefore)
  latencies.sort((a, b) => a - b)
  return {
    messages,
    concurrent,
    wallMs: now() - started,
    cpuPerMessageMs: (cpu.user + cpu.system) / 1000 / messages,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99)
  }
}

export const entityPath = async (messages = 1000) => {
  const base = process.env.AEON_BENCH_DATABASE_URL ??
    ((await reachable(5432)) ? "postgres://postgres@127.0.0.1:5432/test" : undefined)
  if (!base) return { skipped: "no PostgreSQL" }
  const schema = `bench_entity_${Date.now().toString(36)}`
  const admin = PgClient.layer({ url: Redacted.make(base) })
  await Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE SCHEMA ${schema}`)).pipe(
      Effect.provide(admin),
      Effect.orDie
    )
  )
  const url = new URL(base)
  url.searchParams.set("options", `-c search_path=${schema}`)
  const sharding = SingleRunner.layer({
    runnerStorage: "memory",
    shardingConfig: { entityMessagePollInterval: Duration.seconds(2), entityReplyPollInterval: Duration.millis(100) }
  })
  const runtime = ManagedRuntime.make(
    probeHandlers.pipe(
      Layer.provideMerge(sharding),
      Layer.provideMerge(PgClient.layer({ url: Redacted.make(url.toString()) })),
      Layer.orDie
    )
  )
  try {
    const client = await runtime.runPromise(Probe.client)
    const run = Date.now().toString(36)
    const send = (i: number) => runtime.runPromise(client(`${run}-${i}`).Start({ runId: `${run}-${i}` }))
    await measure(send, 50, 1) // warm: the shards acquired, the JIT
    const direct = (i: number) => Effect.runPromise(Effect.asVoid(Effect.succeed(i)))
    return {
      entityOneAtATime: await measure(send, Math.min(messages, 300), 1),
      entityConcurrent: await measure(send, messages, 50),
      directConcurrent: await measure(direct, messages, 50)
    }
  } finally {
    await runtime.dispose()
    await Effect.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP SCHEMA ${schema} CASCADE`)).pipe(
        Effect.provide(admin),
        Effect.orDie
      )
    )
  }
}
