import { Effect, Fiber, FiberId, Runtime, Stream, SubscriptionRef } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import type * as StoreOutages from "../store/StoreOutages.js"
import type { FeedSource } from "./EventFeed.js"
import type { Execution, LiveRun } from "./LiveRuns.js"
import type { OutputSource } from "./OutputFeed.js"

/** When a run's live output ends (the run, or its attempt here, has ended). */
export const outputEnd = (source: OutputSource) =>
  Effect.async<void>((resume) => {
    const following = source(() => {}, () => resume(Effect.void))
    if (following.finished) resume(Effect.void)
    return Effect.sync(following.stop)
  })

/**
 * A run followed here through its attempts: one that ends waiting for its store (past AEON_STORE_OUTAGE_MS) is
 * followed, once the store answers, by the attempt taking the run up again (LiveRuns' retake) — a subscriber sees
 * one run, not its attempts.
 */
export const make = (
  runs: Execution,
  outages: StoreOutages.Service | undefined,
  runtime: Runtime.Runtime<never>
) => {
  /** The attempt's fiber, once launch has set it (it is set just after the run is registered as live). */
  const fiberOf = (entry: LiveRun): Effect.Effect<Fiber.RuntimeFiber<unknown, unknown>> =>
    Effect.suspend(() => entry.fiber ? Effect.succeed(entry.fiber) : Effect.zipRight(Effect.yieldNow(), fiberOf(entry)))

  /** The run waits here to be taken up again once its store answers (its attempt ended waiting): until it is. */
  const untilTakenUp = (id: string) =>
    outages ? Stream.runDrain(Stream.takeWhile(outages.waiting.changes, (m) => m.has(id))) : Effect.void

  /** The attempt that takes the run up after `entry` ended unfinished, once it has (none: not here). */
  const nextAttempt = (id: string, entry: LiveRun) =>
    Effect.gen(function*() {
      yield* Fiber.await(yield* fiberOf(entry))
      if (entry.prepared.events.record().finished) return undefined
      yield* untilTakenUp(id)
      const taken = runs.live(id)
      return taken === entry ? undefined : taken
    })

  /**
   * A live run's events from fromSeq through its attempts here: when an attempt ends waiting for its store, the one
   * taking the run up again is followed from the event after the last one given.
   */
  const throughAttempts = (id: string, fromSeq: number, first: LiveRun): FeedSource => (push) => {
    let next = fromSeq
    const give = (e: RunEvent) => {
      next = e.seq + 1
      push(e)
    }
    let current = first.prepared.events.follow(fromSeq, give)
    const initial = current
    if (initial.finished) return initial
    next = Math.max(next, (initial.past.at(-1)?.seq ?? next - 1) + 1)
    const handOver = (entry: LiveRun): Effect.Effect<void> =>
      Effect.flatMap(nextAttempt(id, entry), (taken) => {
        if (!taken) return Effect.void // finished, or stopped here and not taken up again here
        current.stop()
        current = taken.prepared.events.follow(next, give)
        for (const e of current.past) give(e)
        return current.finished ? Effect.void : handOver(taken)
      })
    const watching = Runtime.runFork(runtime)(handOver(first))
    return {
      past: initial.past,
      finished: false,
      stop: () => {
        current.stop()
        watching.unsafeInterruptAsFork(FiberId.none)
      }
    }
  }

  /**
   * Completes when the run has ended: its attempts here one after another, else (not running here) as `elsewhere`
   * says (its stored events, or another server of a cluster).
   */
  const endOf = (id: string, elsewhere: (id: string) => Effect.Effect<void>): Effect.Effect<void> =>
    Effect.suspend(() => {
      const entry = runs.live(id)
      if (entry) {
        return Effect.flatMap(nextAttempt(id, entry), (taken) => (taken ? endOf(id, elsewhere) : Effect.void))
      }
      return Effect.flatMap(
        outages ? SubscriptionRef.get(outages.waiting) : Effect.succeed(new Map()),
        (waiting) => waiting.has(id) ? Effect.zipRight(untilTakenUp(id), endOf(id, elsewhere)) : elsewhere(id)
      )
    })

  return { throughAttempts, endOf }
}
