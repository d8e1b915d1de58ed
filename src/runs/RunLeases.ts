/**
 * The owner's lease on the runs a process executes (store/RunHolds): taken, renewed, let go or handed over; the
 * sweep that finds the runs whose holder died.
 */
import { Clock, Deferred, Duration, Effect, Option, Ref, Schedule } from "effect"
import { LEASE_MS, RunHolds } from "../store/RunHolds.js"
import type { OwnerAddress } from "./RunOwners.js"

/**
 * The owner's lease on the runs this process executes (store/RunHolds), for LEASE_MS with where it is reached
 * (runs/RunOwners): taken as a run starts here, renewed every LEASE_MS / 3, let go as it ends. Only in a process that
 * is reached (a server, once it listens; the store holds nothing unless it is shared); a store that fails only delays a
 * hold (the next renewal takes it).
 */
export const leasesOf = (holds: Option.Option<RunHolds["Type"]>, address: Option.Option<OwnerAddress["Type"]>) =>
  Option.match(Option.all([holds, address]), {
    onNone: () => ({
      hold: () => Effect.void,
      release: () => Effect.void,
      handOver: () => Effect.void,
      renew: () => Effect.void
    }),
    onSome: ([h, a]) => {
      const holding = (ids: ReadonlyArray<string>, url: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => h.hold(ids, { url, key: a.key }, now + LEASE_MS))
      return {
        // before this process is reached, nobody could send here: the first renewal holds its runs
        hold: (ids: ReadonlyArray<string>) =>
          Effect.flatMap(
            Deferred.poll(a.url),
            Option.match({
              onNone: () => Effect.void,
              onSome: (url) => Effect.flatMap(url, (u) => Effect.ignore(holding(ids, u)))
            })
          ),
        release: (ids: ReadonlyArray<string>) => Effect.ignore(h.release(ids, a.key)),
        handOver: (ids: ReadonlyArray<string>) =>
          Effect.ignore(Effect.flatMap(Clock.currentTimeMillis, (now) => h.handOver(ids, a.key, now))),
        /**
         * Renews the holds of `liveIds()` for ever, from the moment this process is reached; and, unless a cluster
         * brings runs back, takes the runs whose holder died (their hold lapsed) and hands them to `takeUp`.
         */
        renew: (
          liveIds: () => ReadonlyArray<string>,
          takeUp: Option.Option<(ids: ReadonlyArray<string>) => Effect.Effect<void>>
        ) =>
          Effect.flatMap(Deferred.await(a.url), (url) => {
            const lapsed = Option.match(takeUp, {
              onNone: () => Effect.void,
              onSome: (take) =>
                Effect.flatMap(Clock.currentTimeMillis, (now) =>
                  Effect.flatMap(h.takeLapsed({ url, key: a.key }, now, now + LEASE_MS), take))
            })
            return Effect.schedule(
              Effect.suspend(() =>
                holding(liveIds(), url)
              ).pipe(
                Effect.zipRight(lapsed),
                Effect.catchAllCause((cause) => Effect.logWarning("the runs' holds not renewed this time", cause))
              ),
              Schedule.spaced(Duration.millis(LEASE_MS / 3))
            )
          })
      }
    }
  })

/** Runs that stop here, let go — handed over when this server stops: another one sharing the store goes on. */
export const letGoOf =
  (leases: ReturnType<typeof leasesOf>, shuttingDown: Ref.Ref<boolean>) => (ids: ReadonlyArray<string>) =>
    Effect.flatMap(Ref.get(shuttingDown), (down) => (down ? leases.handOver(ids) : leases.release(ids)))
