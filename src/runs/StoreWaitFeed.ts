import { type Effect, Stream } from "effect"
import type * as StoreOutages from "../store/StoreOutages.js"

/** A run's events waiting for its store, or not: what `Run.storeWait` and the `runStoreWaits` subscription give. */
export interface StoreWaitView {
  readonly runId: string
  readonly waiting: boolean
  readonly cause?: string | undefined
  readonly since?: number | undefined
}

/** The run's wait in the waiting runs of this process (not waiting when it is not among them). */
export const storeWaitOf = (
  waiting: ReadonlyMap<string, StoreOutages.WaitingRun>,
  runId: string
): StoreWaitView => {
  const w = waiting.get(runId)
  return w ? { runId, waiting: true, cause: w.cause, since: w.since } : { runId, waiting: false }
}

const none: ReadonlyMap<string, StoreOutages.WaitingRun> = new Map()

/**
 * A run's store waits as a subscription gives them: the state now, then each change (a wait that begins, or ends),
 * until `ended` completes (the run has ended). Read from the process's waiting runs: no store read, so it answers
 * while the store is away.
 */
export const storeWaitChanges = (
  outages: StoreOutages.Service | undefined,
  runId: string,
  ended: Effect.Effect<void>
): Stream.Stream<StoreWaitView> =>
  (outages ? outages.waiting.changes : Stream.concat(Stream.succeed(none), Stream.never)).pipe(
    Stream.map((waiting) => storeWaitOf(waiting, runId)),
    Stream.changesWith((a, b) => a.waiting === b.waiting && a.cause === b.cause),
    Stream.interruptWhen(ended)
  )
