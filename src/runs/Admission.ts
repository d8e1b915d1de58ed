import { Context, Effect, Layer, Option, Schedule } from "effect"
import { RunStore } from "../store/RunStore.js"
import { RunPlacement } from "./Placement.js"

/**
 * When a run may begin: a slot under the server's concurrency limit (runs beyond it wait, in order), and its user's
 * turn (one run at a time per user; on a cluster, across runners).
 */
export interface Admission {
  /** `run`, once admitted; a run waiting to be admitted can be interrupted (cancelled) while it waits. */
  readonly admit: (
    userId: string | null,
    runId: string
  ) => <A, E, R>(run: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Users with runs waiting or running here (each holds a lock while it has any). */
  readonly userLocks: () => number
}

export class RunAdmission extends Context.Tag("aeon/RunAdmission")<RunAdmission, Admission>() {}

interface UserLock {
  readonly lock: Effect.Semaphore
  holders: number
}

const make = (maxConcurrent: number) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const clustered = Option.isSome(yield* Effect.serviceOption(RunPlacement))
    const slots = yield* Effect.makeSemaphore(maxConcurrent)
    // a lock per user with runs waiting or running, removed when the last one ends
    const perUser = new Map<string, UserLock>()

    /**
     * On a cluster, the user's turn across runners, held in the store: waited for (polled) after this runner's own
     * lock. It is not given back when the run stops here: a run handed over keeps its turn (its session is still
     * running) and takes it again where it resumes; a finished run's turn is free.
     */
    const clusterTurn = (userId: string, runId: string) => <A, E, R>(e: Effect.Effect<A, E, R>) =>
      !clustered ? e : store.takeTurn(userId, runId).pipe(
        Effect.repeat({ schedule: Schedule.spaced("250 millis"), until: (granted) => granted }),
        Effect.orDie,
        Effect.zipRight(e)
      )

    const userTurn = (userId: string | null, runId: string) => <A, E, R>(e: Effect.Effect<A, E, R>) =>
      !userId ? e : Effect.acquireUseRelease(
        Effect.sync(() => {
          let u = perUser.get(userId)
          if (!u) perUser.set(userId, u = { lock: Effect.unsafeMakeSemaphore(1), holders: 0 })
          u.holders++
          return u
        }),
        (u) => u.lock.withPermits(1)(clusterTurn(userId, runId)(e)),
        (u) => Effect.sync(() => void (--u.holders === 0 && perUser.delete(userId)))
      )

    return RunAdmission.of({
      admit: (userId, runId) => (run) => userTurn(userId, runId)(slots.withPermits(1)(run)),
      userLocks: () => perUser.size
    })
  })

export const layer = (maxConcurrent: number) => Layer.effect(RunAdmission, make(maxConcurrent))
