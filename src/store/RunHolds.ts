import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Option } from "effect"
import { type StoreError, storeError } from "./StoreValues.js"

/** How long a hold lasts unless renewed: a process that dies lets its runs go within it. */
export const LEASE_MS = 15_000

/** Where a run's owner is reached: its HTTP edge, and the key its owner endpoint asks of a caller. */
export interface Holder {
  readonly url: string
  readonly key: string
}

/**
 * Who executes a run now: the owner's lease on it. A process holds the runs it executes for LEASE_MS, renewing it, and
 * says where it is reached; a person's answer or a cancellation given in another process (the CLI, another server on
 * the same PostgreSQL) is sent there as a message (runs/RunOwners) — the owner records it on the run's log, whose one
 * writer it is. A run no process holds (stopped, or its holder died) is answered on its stored log.
 */
export interface Service {
  /** Holds these runs for `holder` until `until` (ms since the epoch): taken, or renewed. */
  readonly hold: (runIds: ReadonlyArray<string>, holder: Holder, until: number) => Effect.Effect<void, StoreError>
  /** Lets these runs go (those held with `key`): nobody holds them, no other process takes them up. */
  readonly release: (runIds: ReadonlyArray<string>, key: string) => Effect.Effect<void, StoreError>
  /**
   * Hands these runs over (those held with `key`; the process stops): their hold lapses at `now`, so another process
   * sharing the store takes them up at its next sweep (`takeLapsed`), and meanwhile nobody holds them.
   */
  readonly handOver: (runIds: ReadonlyArray<string>, key: string, now: number) => Effect.Effect<void, StoreError>
  /**
   * Takes for `holder` the unfinished runs whose hold lapsed by `now` (their process died: it renews every LEASE_MS / 3),
   * held until `until`; the ids it took. One statement: of processes sweeping at once, each run goes to one.
   */
  readonly takeLapsed: (holder: Holder, now: number, until: number) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** The process holding the run at `now`, if one does. */
  readonly holderOf: (runId: string, now: number) => Effect.Effect<Option.Option<Holder>, StoreError>
}

export class RunHolds extends Context.Tag("aeon/RunHolds")<RunHolds, Service>() {}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const failing = (what: string) => Effect.mapError(storeError(what))
  // only PostgreSQL is shared: the embedded database is one process's (its data directory is locked), so nobody else
  // could reach a run there and nothing is held
  return RunHolds.of({
    hold: (runIds, holder, until) =>
      runIds.length === 0 || !isPg ? Effect.void : sql`UPDATE runs SET holder = ${holder.url},
        holder_key = ${holder.key}, held_until = ${until} WHERE ${sql.in("id", runIds)}`.pipe(
        Effect.asVoid,
        failing("holding runs")
      ),
    release: (runIds, key) =>
      runIds.length === 0 || !isPg ? Effect.void : sql`UPDATE runs SET holder = NULL, holder_key = NULL,
        held_until = NULL WHERE ${sql.in("id", runIds)} AND holder_key = ${key}`.pipe(
        Effect.asVoid,
        failing("letting runs go")
      ),
    handOver: (runIds, key, now) =>
      runIds.length === 0 || !isPg ? Effect.void : sql`UPDATE runs SET held_until = ${now}
        WHERE ${sql.in("id", runIds)} AND holder_key = ${key}`.pipe(Effect.asVoid, failing("handing runs over")),
    takeLapsed: (holder, now, until) =>
      !isPg ? Effect.succeed([]) : sql<{ id: string }>`UPDATE runs SET holder = ${holder.url},
        holder_key = ${holder.key}, held_until = ${until} WHERE status IN ('RUNNING', 'QUEUED')
        AND holder IS NOT NULL AND held_until <= ${now} RETURNING id`.pipe(
        Effect.map((rows) => rows.map((r) => r.id)),
        failing("taking up the runs whose holder died")
      ),
    holderOf: (runId, now) =>
      !isPg ? Effect.succeed(Option.none()) : sql<{ holder: string | null; holder_key: string | null }>`
        SELECT holder, holder_key FROM runs WHERE id = ${runId} AND held_until > ${now}`.pipe(
        Effect.map((rows) => {
          const row = rows[0]
          return row?.holder && row.holder_key ? Option.some({ url: row.holder, key: row.holder_key }) : Option.none()
        }),
        failing(`reading who holds run ${runId}`)
      )
  })
})

/** The holds over the store's SQL client (both dialects; only PostgreSQL's are shared). */
export const layer = Layer.effect(RunHolds, make)
