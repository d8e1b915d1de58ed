/**
 * This process's side of the lease on the runs it executes (store/RunLease): who it claims as, its holds renewed
 * (and the runs it no longer holds found), the check before a call with side effects, the sweep of runs whose holder
 * stopped, and runs let go or handed over.
 */
import { Clock, Deferred, Duration, Effect, Option, Ref, Schedule } from "effect"
import type { Claimant, RunLease } from "../store/RunLease.js"
import { repeated } from "../support/Background.js"
import type { OwnerAddress } from "./RunOwners.js"

/** What a process does with the runs it executes when no lease is kept (the embedded store, the library). */
const noLeases = {
  claimant: (_runner?: string) => Effect.succeed<Claimant | undefined>(undefined),
  stillHeld: (_runId: string) => Effect.succeed(true),
  release: (_ids: ReadonlyArray<string>) => Effect.void,
  handOver: (_ids: ReadonlyArray<string>) => Effect.void,
  renew: (
    _liveIds: () => ReadonlyArray<string>,
    _lost: (ids: ReadonlyArray<string>) => Effect.Effect<void>,
    _takeUp: Option.Option<(ids: ReadonlyArray<string>) => Effect.Effect<void>>
  ) => Effect.void
}
export type Leases = typeof noLeases

/** A renewal failing on the store is tried again this often before the hold counts as unconfirmed. */
const confirmRetries = Schedule.intersect(Schedule.recurs(3), Schedule.spaced("200 millis"))

/**
 * The lease kept by a process that is reached (a server: its owner endpoint's key, its URL once it listens). Every run
 * launched here was claimed as `claimant` (run/Run). The holds are renewed every third of the lease; a run whose
 * renewal no longer holds it was taken up elsewhere: `lost` stops it here. Before a call with side effects the hold
 * is confirmed: without a store round trip while the last renewal's hold has a third of the lease left, else by a
 * renewal of that run alone.
 */
const keptLeases = (lease: RunLease["Type"], address: OwnerAddress["Type"]): Leases => {
  const url = Effect.flatMap(
    Deferred.poll(address.url),
    Option.match({ onNone: () => Effect.succeed(undefined), onSome: (u) => u })
  )
  // until when each run is known held: the time before its last renewal was sent, plus the lease
  const confirmedUntil = new Map<string, number>()
  const renewed = (ids: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const sentAt = yield* Clock.currentTimeMillis
      const held = yield* lease.renew(ids, { key: address.key, url: yield* url })
      for (const id of held) confirmedUntil.set(id, sentAt + lease.leaseMs)
      return held
    })
  const stillHeld = (runId: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      now < (confirmedUntil.get(runId) ?? 0) - lease.leaseMs / 3
        ? Effect.succeed(true)
        : renewed([runId]).pipe(
          Effect.retry(confirmRetries),
          Effect.map((held) => held.includes(runId)),
          Effect.orElseSucceed(() => false)
        ))
  const forget = (ids: ReadonlyArray<string>) => Effect.sync(() => ids.forEach((id) => confirmedUntil.delete(id)))
  return {
    claimant: (runner?: string) => Effect.map(url, (u) => ({ key: address.key, url: u, runner })),
    stillHeld,
    release: (ids) => Effect.zipRight(forget(ids), Effect.ignore(lease.release(ids, address.key))),
    handOver: (ids) => Effect.zipRight(forget(ids), Effect.ignore(lease.handOver(ids, address.key))),
    renew: (liveIds, lost, takeUp) => {
      const renewal = Effect.suspend(() => {
        const ids = liveIds()
        return Effect.flatMap(renewed(ids), (held) => {
          const gone = ids.filter((id) => !held.includes(id))
          return gone.length === 0 ? Effect.void : Effect.zipRight(forget(gone), lost(gone))
        })
      })
      const lapsed = Option.match(takeUp, {
        onNone: () => Effect.void,
        onSome: (take) => Effect.flatMap(lease.lapsed, take)
      })
      return repeated("the runs' holds renewed", Duration.millis(lease.leaseMs / 3), Effect.zipRight(renewal, lapsed))
    }
  }
}

/** The lease a process keeps on the runs it executes: where the store is shared and the process is reached. */
export const leasesOf = (
  lease: Option.Option<RunLease["Type"]>,
  address: Option.Option<OwnerAddress["Type"]>
): Leases =>
  Option.match(Option.all([lease, address]), {
    onNone: () => noLeases,
    onSome: ([l, a]) => (l.shared ? keptLeases(l, a) : noLeases)
  })

/** Runs that stop here, let go — handed over when this server stops: another one sharing the store goes on. */
export const letGoOf = (leases: Leases, shuttingDown: Ref.Ref<boolean>) => (ids: ReadonlyArray<string>) =>
  Effect.flatMap(Ref.get(shuttingDown), (down) => (down ? leases.handOver(ids) : leases.release(ids)))
