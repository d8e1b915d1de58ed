import { Effect, Fiber } from "effect"
import type { StoreError } from "../store/RunStore.js"
import { endCancelled, interruptLive } from "./Attempts.js"
import type { LiveRun } from "./LiveRun.js"

/*
 * What a cluster's runner does for its run entity (cluster/Cluster's handlers): run the run here to its end, cancel it
 * here — taking it up first when it is not live here.
 */

/** Where a stored run is taken up here, if it can be (undefined: it had ended, or it is damaged). */
export type LaunchStored = (id: string) => Effect.Effect<LiveRun | undefined, StoreError>

/**
 * A cluster's runner runs its entity's run here to its end: taken up if it is not live, followed through the attempts
 * that take it up again; interrupted (its shard moves), it stops here unfinished.
 */
export const runHereOf = (live: ReadonlyMap<string, LiveRun>, launchStored: LaunchStored) => (id: string) =>
  Effect.gen(function*() {
    let entry = live.get(id) ?? (yield* launchStored(id))
    while (entry?.fiber) {
      const fiber = entry.fiber
      // the entity interrupted (its shard moves to another runner): the run stops here, unfinished (tool calls first)
      yield* Effect.onInterrupt(Fiber.await(fiber), () => Fiber.interrupt(fiber))
      if (entry.prepared.events.record().finished) break
      // an attempt that ended waiting for its store is followed by the one that took the run up again here
      const next = live.get(id)
      if (next === undefined || next === entry) break
      entry = next
    }
    const finished = entry ? entry.prepared.events.record().finished : true
    if (!finished) {
      yield* Effect.logWarning(`run ${id} stopped unfinished on this runner; it resumes where it is taken up`)
      return yield* Effect.never
    }
  })

/** A person's cancellation of a run here (taken up first when it is not live): it ends CANCELLED. */
export const cancelHereOf = (live: ReadonlyMap<string, LiveRun>, launchStored: LaunchStored) => (id: string) =>
  Effect.gen(function*() {
    const entry = live.get(id) ?? (yield* launchStored(id))
    if (!entry) return
    yield* interruptLive(entry)
    if (entry.fiber) yield* Fiber.await(entry.fiber)
    yield* endCancelled(entry.prepared)
  })
