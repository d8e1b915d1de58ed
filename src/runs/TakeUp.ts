/**
 * Runs taken up here that no live fiber of this process runs: those a dead process left (start-up recovery), those
 * whose holder stopped renewing its lease, and one whose store came back after an outage ended its attempt.
 */
import { type Context, Effect, Option, Ref, Schedule } from "effect"
import type { StoreOutageError } from "../domain/Errors.js"
import { type PreparedRun, takeUnfinished } from "../run/Run.js"
import type { Claimant } from "../store/RunLease.js"
import type { StoreError } from "../store/RunStore.js"
import type { StoreOutages } from "../store/StoreOutages.js"
import type { LiveRun, RunNeeds } from "./LiveRun.js"
import { startUpClaim } from "./RunOwners.js"

/**
 * A run whose store stayed away past AEON_STORE_OUTAGE_MS ended its attempt: it is taken up again from what was stored
 * once the store answers (looked at every 2 s until then, or until the server stops); health counts it among the runs
 * waiting for the store meanwhile.
 */
export const retakeWhenBack = (
  outages: Option.Option<StoreOutages["Type"]>,
  launchStored: (id: string) => Effect.Effect<LiveRun | undefined, unknown>
) =>
(outage: StoreOutageError): Effect.Effect<LiveRun | undefined> => {
  const taken = Effect.suspend(() => launchStored(outage.runId)).pipe(
    Effect.retry(Schedule.spaced("2 seconds")),
    Effect.tap((entry) => entry ? Effect.logInfo(`run ${outage.runId} resumes: its store answers again`) : Effect.void),
    // (a schedule that never ends: no failure is left)
    Effect.orDie
  )
  return Option.match(outages, {
    onNone: () => taken,
    onSome: (o) => Effect.zipRight(o.mark(outage.runId, outage.cause), Effect.ensuring(taken, o.unmark(outage.runId)))
  })
}

/** Start-up recovery: the runs a dead process left unfinished, claimed and launched here; how many. */
export const resumeHere = (
  needs: Context.Context<RunNeeds>,
  launch: (prepared: PreparedRun, userId: string | null, createdAt: Date) => Effect.Effect<void>,
  claimant: Effect.Effect<Claimant | undefined>
) =>
  Effect.provide(
    Effect.flatMap(claimant, (by) =>
      Effect.map(
        // a run another server on the same PostgreSQL executes now is its own (asked: a restarted process's old
        // holds do not answer)
        takeUnfinished((prepared, row) => Effect.as(launch(prepared, row.userId, row.createdAt), true), 1, (id) =>
          Effect.tap(
            startUpClaim(by)(id),
            (claim) =>
              claim === "leave"
                ? Effect.logInfo(`run ${id} goes on in the process holding it: left to it`)
                : Effect.void
          )),
        (launched) => launched.length
      )),
    needs
  )

/**
 * Runs whose holder stopped (its hold lapsed), claimed here one by one: one another process claimed first is left to
 * it (RunHeldElsewhereError, said by launchStored), and so is one this process runs already.
 */
export const takeUpLapsed = (here: {
  readonly live: ReadonlyMap<string, LiveRun>
  readonly shuttingDown: Ref.Ref<boolean>
  readonly launchStored: (id: string) => Effect.Effect<LiveRun | undefined, StoreError>
  readonly letGo: (ids: ReadonlyArray<string>) => Effect.Effect<void>
}) =>
(ids: ReadonlyArray<string>) =>
  Effect.forEach(ids.filter((id) => !here.live.has(id)), (id) =>
    Effect.gen(function*() {
      const launched = !(yield* Ref.get(here.shuttingDown)) &&
        (yield* Effect.orElseSucceed(here.launchStored(id), () => undefined)) !== undefined
      // not run here: finished meanwhile or damaged (held by nobody, not taken again), or this server stops (handed
      // over to the next sweep of another)
      if (!launched) return yield* here.letGo([id])
      yield* Effect.logWarning(`run ${id}: the process that held it stopped renewing its hold; it goes on here`)
    }), { discard: true })
