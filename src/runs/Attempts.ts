import { Cause, Deferred, Effect, Fiber, FiberSet, Option, Ref } from "effect"
import { StoreOutageError } from "../domain/Errors.js"
import { resultOf } from "../record/RunResult.js"
import { cancelledEnd, type PreparedRun, RunLifecycle } from "../run/Run.js"
import { RunFencedError } from "../store/StoreValues.js"
import type { RunAdmission } from "./Admission.js"
import type { LiveRun } from "./LiveRun.js"
import type { Leases } from "./RunLeases.js"

/*
 * A run's attempt in this process, from its launch to its end: run in its own fiber once admitted, told whether an
 * interruption leaves it unfinished and whether it still holds its run, stopped when another process took it up or a
 * person cancelled it, its end said (runs/LiveRuns keeps the live ones).
 */

/**
 * A cancelled run that never began (it waited for a slot or its user's turn) ends CANCELLED all the same: written
 * by the canceller once the run's fiber is gone (an interrupted fiber's finalizer could not wait for the store).
 */
export const endCancelled = (prepared: PreparedRun) =>
  Effect.suspend(() => {
    const record = prepared.events.record()
    if (record.finished) return Effect.void
    return prepared.events.emit(cancelledEnd(resultOf(record).usage)).pipe(
      Effect.zipRight(prepared.events.close),
      Effect.ignore
    )
  })

/** Interrupts a run going on here as a person's cancellation: it ends CANCELLED (tool calls finish first). */
export const interruptLive = (entry: LiveRun) =>
  Effect.suspend(() => {
    entry.cancelled = true
    return entry.fiber ? Fiber.interrupt(entry.fiber) : Effect.void
  })

/**
 * Whether an interruption leaves the run unfinished (it resumes elsewhere, or on the next start): when the server
 * stops, when another process took the run up (this one lost its hold), and on a cluster whenever a person did not
 * cancel it (its shard moved, the runner stops). Before a call with side effects: whether this process still holds it.
 */
export const lifecycle = (shuttingDown: Ref.Ref<boolean>, clustered: boolean, leases: Leases) => (entry: LiveRun) => ({
  shuttingDown: Effect.map(
    Ref.get(shuttingDown),
    (down) => down || entry.lost === true || (clustered && !entry.cancelled)
  ),
  stillHeld: Effect.flatMap(leases.stillHeld(entry.prepared.runId), (held) => {
    if (held) return Effect.void
    entry.lost = true
    return Effect.die(new RunFencedError({ runId: entry.prepared.runId, epoch: -1 }))
  })
})

/**
 * Runs another process took up (this one's renewal no longer holds them): stopped here, writing nothing more (their
 * appends are refused by then in any case); a tool call in flight finishes first.
 */
export const stopLost = (live: ReadonlyMap<string, LiveRun>) => (ids: ReadonlyArray<string>) =>
  Effect.forEach(ids, (id) => {
    const entry = live.get(id)
    if (!entry) return Effect.void
    entry.lost = true
    return Effect.zipRight(
      Effect.logWarning(`run ${id} was taken up by another process: it stops here`),
      entry.fiber ? Effect.fork(Fiber.interrupt(entry.fiber)) : Effect.void
    )
  }, { discard: true })

/**
 * How an attempt ends: one whose store stayed away past the bound is taken up again here once it answers (on a
 * cluster too: the run is still this runner's; runHere follows the attempt that takes it up); any other defect is
 * said in the log (the run stays as its record left it; a restart resumes it). `done` once all that is over.
 */
const attemptEnd =
  (entry: LiveRun, retake: (outage: StoreOutageError) => Effect.Effect<unknown>) =>
  <A, E, R>(attempt: Effect.Effect<A, E, R>) =>
    attempt.pipe(
      Effect.catchSomeDefect((d) =>
        d instanceof StoreOutageError ? Option.some(Effect.asVoid(retake(d))) : Option.none()
      ),
      Effect.tapDefect((cause) =>
        Effect.logError(`run ${entry.prepared.runId} stopped here, unfinished: ${Cause.pretty(cause)}`)
      ),
      // (after a retake: the attempt taking the run up again is live by then)
      Effect.ensuring(Deferred.succeed(entry.done, undefined))
    )

/**
 * A prepared run launched here (claimed as it was prepared: held, so an answer or a cancellation given in another
 * process is sent here): live, then
 * run in its own fiber once admitted; let go as it ends.
 */
export const launchOf = (here: {
  readonly live: Map<string, LiveRun>
  readonly fibers: FiberSet.FiberSet
  readonly admit: RunAdmission["Type"]["admit"]
  readonly letGo: (ids: ReadonlyArray<string>) => Effect.Effect<void>
  readonly lifecycleOf: (entry: LiveRun) => RunLifecycle["Type"]
  readonly retake: (outage: StoreOutageError) => Effect.Effect<unknown>
}) =>
(prepared: PreparedRun, userId: string | null, createdAt: Date) =>
  Effect.gen(function*() {
    const entry: LiveRun = { prepared, userId, createdAt, done: yield* Deferred.make<void>() }
    here.live.set(prepared.runId, entry)
    const started = yield* Deferred.make<void>()
    const run = Deferred.await(started).pipe(
      Effect.zipRight(here.admit(userId, prepared.runId)(prepared.execute)),
      Effect.provideService(RunLifecycle, here.lifecycleOf(entry)),
      Effect.ensuring(Effect.suspend(() => {
        here.live.delete(prepared.runId)
        return here.letGo([prepared.runId])
      })),
      attemptEnd(entry, here.retake)
    )
    // interruptible whatever its caller is (start-up recovery runs while the server's layer is built, with
    // interruption off): cancel, a budget's timeout and shutdown interrupt it
    entry.fiber = yield* FiberSet.run(here.fibers, Effect.interruptible(run))
    yield* Deferred.succeed(started, undefined)
  })
