import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Config, Context, Effect, Layer, Option } from "effect"
import { type Fence, type StoreError, storeError } from "./StoreValues.js"

/** How long a hold lasts unless renewed, by default: a process that dies lets its runs go within it. */
export const LEASE_MS = 15_000

/** Where a run's owner is reached: its HTTP edge, and the key its owner endpoint asks of a caller. */
export interface Holder {
  readonly url: string
  readonly key: string
}

/** Who takes a run up, and on what grounds. */
export interface Claimant {
  /** The taking process's key (its owner endpoint's): its hold is known by it. */
  readonly key: string
  /** Where it is reached, once it listens (before: held by its key alone; the first renewal says where). */
  readonly url?: string | undefined
  /** A cluster's runner (its address): the shard's owner, recorded on the run. */
  readonly runner?: string | undefined
  /** Taken whoever holds it: a run just registered here, or a cluster's shard owner (sharding decided already). */
  readonly force?: boolean | undefined
  /** The key of a holder asked and found silent (start-up recovery): taken from it while its hold still lasts. */
  readonly over?: string | undefined
}

/**
 * Who executes a run: one lease with its epoch, for plain servers sharing PostgreSQL and for a cluster's runners.
 *
 * Every take-up claims the run: its owner epoch is raised and it is held (`holder_key`, `held_until`) in one
 * statement, unless another process's hold on it still lasts. The attempt's appends are fenced with that epoch
 * (store/EventLog): once another process has claimed the run, they are refused. A renewal holds only what this
 * process still holds (`AND holder_key = $key`) and answers which those are: a run it no longer holds is stopped here
 * (runs/LiveRuns) before its next append or call with side effects. A person's answer or cancellation given in another
 * process is sent to the holder's URL (runs/RunOwners).
 *
 * Only PostgreSQL is shared: the embedded database is one process's (its data directory is locked), so nothing is
 * held there, and a claim only raises the epoch.
 */
export interface Service {
  /** Whether the store is shared between processes (PostgreSQL): holds and fences mean something. */
  readonly shared: boolean
  /** How long a hold lasts unless renewed (AEON_LEASE_MS); renewed every third of it. */
  readonly leaseMs: number
  /** Takes the run up for `by`: the epoch its appends are fenced with; none while another's hold on it lasts. */
  readonly claim: (runId: string, by: Claimant) => Effect.Effect<Option.Option<Fence>, StoreError>
  /** Renews this process's holds on these runs (those still held with `key`): the ids it still holds. */
  readonly renew: (
    runIds: ReadonlyArray<string>,
    holder: { readonly key: string; readonly url?: string | undefined }
  ) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** Lets these runs go (those held with `key`): nobody holds them, no other process takes them up. */
  readonly release: (runIds: ReadonlyArray<string>, key: string) => Effect.Effect<void, StoreError>
  /**
   * Hands these runs over (those held with `key`; the process stops): their hold lapses now, so another process
   * sharing the store takes them up at its next sweep, and meanwhile nobody holds them.
   */
  readonly handOver: (runIds: ReadonlyArray<string>, key: string) => Effect.Effect<void, StoreError>
  /** The unfinished runs whose hold lapsed (their process died, or handed them over): each to be claimed. */
  readonly lapsed: Effect.Effect<ReadonlyArray<string>, StoreError>
  /** The process holding the run now, where it is reached, if one does. */
  readonly holderOf: (runId: string) => Effect.Effect<Option.Option<Holder>, StoreError>
}

export class RunLease extends Context.Tag("aeon/RunLease")<RunLease, Service>() {}

const leaseConfig = Config.integer("AEON_LEASE_MS").pipe(
  Config.withDescription("How long a process's hold on a run lasts unless renewed (ms)"),
  Config.validate({ message: "AEON_LEASE_MS must be at least 300", validation: (ms) => ms >= 300 }),
  Config.withDefault(LEASE_MS)
)

/** The claim's statement: the epoch raised and the run held, unless another's hold lasts (or `force`). */
const claimStatement = (sql: SqlClient.SqlClient, runId: string, by: Claimant, now: number, until: number) =>
  sql<{ owner_epoch: number }>`UPDATE runs SET owner_epoch = owner_epoch + 1, holder = ${by.url ?? null},
    holder_key = ${by.key}, held_until = ${until}, runner = COALESCE(${by.runner ?? null}, runner)
    WHERE id = ${runId} AND (${by.force ? 1 : 0} = 1 OR holder_key IS NULL OR holder_key = ${by.key}
      OR held_until IS NULL OR held_until <= ${now} OR holder_key = ${by.over ?? null})
    RETURNING owner_epoch`

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const leaseMs = yield* leaseConfig
  const shared = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const failing = (what: string) => Effect.mapError(storeError(what))
  const now = Clock.currentTimeMillis
  const unshared = <A>(a: A) => Effect.succeed(a)
  return RunLease.of({
    shared,
    leaseMs,
    claim: (runId, by) =>
      Effect.flatMap(now, (t) =>
        (shared
          ? claimStatement(sql, runId, by, t, t + leaseMs)
          : sql<{ owner_epoch: number }>`UPDATE runs SET owner_epoch = owner_epoch + 1,
            runner = COALESCE(${by.runner ?? null}, runner) WHERE id = ${runId} RETURNING owner_epoch`).pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => ({ epoch: Number(r.owner_epoch) }))),
            failing(`taking up run ${runId}`)
          )),
    renew: (runIds, holder) =>
      runIds.length === 0 || !shared ?
        unshared(runIds) :
        Effect.flatMap(now, (t) =>
          sql<{ id: string }>`UPDATE runs SET holder = COALESCE(${holder.url ?? null}, holder),
          held_until = ${t + leaseMs} WHERE ${sql.in("id", runIds)} AND holder_key = ${holder.key} RETURNING id`.pipe(
            Effect.map((rows) => rows.map((r) => r.id)),
            failing("renewing the holds on runs")
          )),
    release: (runIds, key) =>
      runIds.length === 0 || !shared ? Effect.void : sql`UPDATE runs SET holder = NULL, holder_key = NULL,
        held_until = NULL WHERE ${sql.in("id", runIds)} AND holder_key = ${key}`.pipe(
        Effect.asVoid,
        failing("letting runs go")
      ),
    handOver: (runIds, key) =>
      runIds.length === 0 || !shared ?
        Effect.void :
        Effect.flatMap(now, (t) =>
          sql`UPDATE runs SET held_until = ${t} WHERE ${sql.in("id", runIds)} AND holder_key = ${key}`.pipe(
            Effect.asVoid,
            failing("handing runs over")
          )),
    lapsed: !shared ?
      unshared([]) :
      Effect.flatMap(
        now,
        (t) =>
          sql<{ id: string }>`SELECT id FROM runs WHERE status IN ('RUNNING', 'QUEUED') AND parent_run_id IS NULL
        AND holder_key IS NOT NULL AND held_until <= ${t} ORDER BY created_at, id LIMIT 100`.pipe(
            Effect.map((rows) => rows.map((r) => r.id)),
            failing("listing the runs whose holder stopped")
          )
      ),
    holderOf: (runId) =>
      !shared ?
        unshared(Option.none()) :
        Effect.flatMap(now, (t) =>
          sql<{ holder: string | null; holder_key: string | null }>`
        SELECT holder, holder_key FROM runs WHERE id = ${runId} AND held_until > ${t}`.pipe(
            Effect.map((rows) => {
              const row = rows[0]
              return row?.holder && row.holder_key
                ? Option.some({ url: row.holder, key: row.holder_key })
                : Option.none()
            }),
            failing(`reading who holds run ${runId}`)
          ))
  })
})

/** The lease over the store's SQL client (both dialects; only PostgreSQL's is shared). */
export const layer = Layer.effect(RunLease, make)
