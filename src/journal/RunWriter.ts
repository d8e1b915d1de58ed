import { Array as Arr, type Cause, Chunk, Clock, Deferred, Effect, Exit, Queue, Schedule, Scope } from "effect"
import { StoreOutageError, type StoreUnavailableError } from "../domain/Errors.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { beginsRun, endsRun, type RunRecord } from "../record/RunRecord.js"

/**
 * Where a run's events go to be stored: the sink the store implements, and the run's writer — one fiber taking each
 * batch from a queue, storing it (tried again while the store fails for a reason that can pass), then publishing it.
 */

/** Where events are persisted before they are published (the store implements it). */
export interface EventSinkService {
  /**
   * Persists events in order, all of them or none. A failure that can pass (the disk full, the database away) is a
   * StoreUnavailableError — the writer tries again —, any other a defect (the run stops loudly). `log` is the run's
   * whole log so far (the batch is its tail) and `record` its fold: what RunFinished's records are built from.
   */
  readonly append: (
    events: ReadonlyArray<RunEvent>,
    log: ReadonlyArray<RunEvent>,
    record: RunRecord
  ) => Effect.Effect<void, StoreUnavailableError>
}

/** How long a run's events may wait for a store that fails before its attempt ends here (AEON_STORE_OUTAGE_MS). */
export const DEFAULT_STORE_OUTAGE_MS = 5 * 60_000

export type WaitOutcome = "written" | "gave up" | "stopped"

/** Told as a run's writes begin and end waiting for its store (the log, health, a terminal). */
export interface StoreWaits {
  readonly boundMs: number
  /** The run's writes began to wait (once an outage). */
  readonly began: (runId: string, cause: string) => Effect.Effect<void>
  /**
   * They are stored again ("written"); the bound passed and the run's attempt ends here ("gave up": the run still
   * waits for its store, to be taken up again once it answers); or the run was stopped while it waited ("stopped").
   */
  readonly ended: (runId: string, waitedMs: number, outcome: WaitOutcome) => Effect.Effect<void>
}

/**
 * Events the run waits on until they are stored: the run's start and its end (its result). Other events
 * are stored by the run's writer in group commits while the run goes on; the Executor also waits on
 * `flushed` around a tool call with side effects.
 */
export const isDurabilityPoint = (e: RunEvent) => beginsRun(e) || endsRun(e)

/** Where a run's log stands: the last event made, the last stored and published, whether its end is stored. */
export interface LogState {
  lastSeq: number
  storedSeq: number
  finished: boolean
  /** The store refused a batch: the run stops at its next event. */
  failure: Cause.Cause<never> | undefined
  /** A batch waits for a store that fails: each event the run emits meanwhile waits until it is stored. */
  storeWaiting: boolean
}

/** Tries again after 50 ms, doubling to every 2 s (jittered), while the bound allows. */
const storeRetries = (boundMs: number) =>
  Schedule.exponential("50 millis").pipe(
    Schedule.union(Schedule.spaced("2 seconds")),
    Schedule.jittered,
    Schedule.upTo(`${boundMs} millis`)
  )

/** Who waits until the run's events up to a seq are stored: waiting, and let go as batches are (or fail to be) stored. */
const storedWaits = (state: LogState) => {
  let waiters: Array<{ readonly seq: number; readonly done: Deferred.Deferred<void> }> = []
  return {
    /** The waiters whose events are stored now let go (`all`: every one, the store having failed). */
    release: (all: boolean) =>
      Effect.suspend(() => {
        const ready = all ? waiters : waiters.filter((w) => w.seq <= state.storedSeq)
        if (ready.length === 0) return Effect.void
        waiters = all ? [] : waiters.filter((w) => w.seq > state.storedSeq)
        return Effect.forEach(
          ready,
          (w) => (state.failure ? Deferred.failCause(w.done, state.failure) : Deferred.succeed(w.done, undefined)),
          { discard: true }
        )
      }),
    waitStored: (seq: number) =>
      Effect.suspend(() => {
        if (state.failure) return Effect.failCause(state.failure)
        if (seq <= state.storedSeq) return Effect.void
        return Effect.flatMap(Deferred.make<void>(), (done) => {
          waiters.push({ seq, done })
          return Deferred.await(done)
        })
      })
  }
}

/**
 * The writer: one fiber in the run's scope, started by the first event; each batch is what the run emitted while the
 * previous one was being stored (a group commit), taken from the queue at once. `toStore` hands it events; a
 * durability point among them waits until they are stored.
 */
export const makeWriter = (
  sink: EventSinkService,
  events: ReadonlyArray<RunEvent>,
  record: RunRecord,
  state: LogState,
  scope: Scope.Scope,
  published: (batch: Arr.NonEmptyReadonlyArray<RunEvent>) => void,
  waits: StoreWaits | undefined,
  waited: (cause: string, waitedMs: number) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    const stored = storing(sink, events, record, state, waits, waited)
    const queue = yield* Queue.unbounded<RunEvent>()
    let writing = false
    const { release, waitStored } = storedWaits(state)
    const write: Effect.Effect<void> = Effect.gen(function*() {
      while (!state.failure) {
        // an idle writer is handed the first event alone; what the run emitted before the writer woke joins it
        const first = yield* Queue.takeBetween(queue, 1, Number.MAX_SAFE_INTEGER)
        const batch = Chunk.toReadonlyArray(Chunk.appendAll(first, yield* Queue.takeAll(queue)))
        if (!Arr.isNonEmptyReadonlyArray(batch)) continue
        const exit = yield* Effect.exit(stored(batch))
        if (Exit.isFailure(exit)) {
          state.failure = exit.cause
          yield* Queue.shutdown(queue)
          yield* release(true)
        } else {
          published(batch)
          yield* release(false)
        }
      }
    })
    // the run's scope closed (its attempt ended, a cancelled run that never began): what is emitted after is stored
    // by its emitter, at once (the writer fiber is gone with the scope)
    let closed = false
    yield* Scope.addFinalizer(scope, Effect.sync(() => void (closed = true)))
    const storedNow = Effect.gen(function*() {
      const batch = Chunk.toReadonlyArray(yield* Queue.takeAll(queue))
      if (!Arr.isNonEmptyReadonlyArray(batch)) return
      const exit = yield* Effect.exit(stored(batch))
      if (Exit.isFailure(exit)) state.failure = exit.cause
      else published(batch)
      yield* release(Exit.isFailure(exit))
    })
    const toStore = (made: ReadonlyArray<RunEvent>) => {
      for (const event of made) queue.unsafeOffer(event)
      if (closed) return storedNow
      let next: Effect.Effect<unknown> = Effect.void
      if (!writing) {
        writing = true
        // (interruptible: it is forked from the uninterruptible emit, and closing the scope interrupts it)
        next = Effect.forkIn(Effect.interruptible(write), scope)
      }
      // the events are in the log and on their way; waiting until they are stored (a durability point) can be
      // interrupted
      // (while the store fails, every event waits: the run makes no more calls than the store can keep)
      if (state.storeWaiting || made.some(isDurabilityPoint)) {
        next = Effect.zipRight(next, Effect.interruptible(waitStored(state.lastSeq)))
      }
      return next
    }
    return { toStore, waitStored }
  })

/**
 * A batch stored: while the store fails for a reason that can pass, tried again, the same batch whole, in order (the
 * run waits, told through `waits`); past the bound, a StoreOutageError (a defect: the run's attempt ends here).
 */
const storing = (
  sink: EventSinkService,
  events: ReadonlyArray<RunEvent>,
  record: RunRecord,
  state: LogState,
  waits: StoreWaits | undefined,
  waited: (cause: string, waitedMs: number) => Effect.Effect<void>
) =>
(batch: Arr.NonEmptyReadonlyArray<RunEvent>): Effect.Effect<void> =>
  Effect.suspend(() => {
    const runId = batch[0].runId
    let since: number | undefined
    let cause = ""
    const began = (e: StoreUnavailableError) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (since !== undefined) return Effect.void
        since = now
        cause = e.cause
        state.storeWaiting = true
        return waits?.began(runId, e.cause) ?? Effect.void
      })
    const ended = (outcome: WaitOutcome) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (since === undefined) return Effect.void
        state.storeWaiting = false
        const told = waits?.ended(runId, now - since, outcome) ?? Effect.void
        return outcome === "written" ? Effect.zipRight(told, waited(cause, now - since)) : told
      })
    return sink.append(batch, events, record).pipe(
      Effect.tapError(began),
      Effect.retry(storeRetries(waits?.boundMs ?? DEFAULT_STORE_OUTAGE_MS)),
      Effect.tap(() => ended("written")),
      Effect.onInterrupt(() => ended("stopped")),
      Effect.catchAll((e) =>
        Effect.zipRight(
          ended("gave up"),
          Effect.flatMap(
            Clock.currentTimeMillis,
            (now) => Effect.die(new StoreOutageError({ runId, cause: e.cause, waitedMs: now - (since ?? now) }))
          )
        )
      )
    )
  })
