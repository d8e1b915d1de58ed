import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Layer } from "effect"
import * as EventNotifications from "../../src/cluster/EventNotifications.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { register } from "../../src/run/Run.js"
import * as Notifications from "../../src/store/Notifications.js"
import { RunStore } from "../../src/store/RunStore.js"
import { backend, claimedBy, storeLayer } from "../support/database.js"
import { scripted } from "../support/engine.js"
import { convergedEnd } from "../support/fixtures.js"
import { convergingScript } from "../support/scripts.js"

/**
 * Followers in one process of a run executing on another server: woken by pg_notify at each append's commit, they
 * share one store read per wake (not one each), and each still gets every event once, in order.
 */
if (backend !== "postgres") console.log("EventNotifications test skipped: it needs PostgreSQL (AEON_TEST_DATABASE_URL)")

const FOLLOWERS = 20
/** The store and the process's LISTEN connection over it (in the test's scope: it listens for the whole test). */
const withNotifications = Layer.provideMerge(Notifications.layer({ watch: Duration.hours(1) }), storeLayer())
const reads: Array<number> = []
/** The store, with its reads of events counted. */
const counted = Layer.effect(
  RunStore,
  Effect.map(RunStore, (store) => ({
    ...store,
    events: (id: string, fromSeq?: number) => {
      reads.push(fromSeq ?? 0)
      return store.events(id, fromSeq)
    }
  }))
)

/** The store, each read of events answered up to 20 ms after it was made: what is appended meanwhile is not in it. */
const lateAnswers = Layer.effect(
  RunStore,
  Effect.map(RunStore, (store) => ({
    ...store,
    events: (id: string, fromSeq?: number) =>
      Effect.flatMap(store.events(id, fromSeq), (events) => Effect.as(Effect.sleep(Math.random() * 20), events))
  }))
)

const event = (runId: string, seq: number): RunEvent => ({
  _tag: "PassStarted",
  runId,
  seq,
  at: Date.now(),
  passNumber: 1,
  ttlRemaining: 3
})

/** The run's end (the mirror, having handed it out, is dropped: no wake reaches it again). */
const finished = (runId: string, seq: number): RunEvent => ({ ...convergedEnd, runId, seq, at: Date.now() })

/** A run claimed by another runner ("elsewhere"), and this process's follower of such runs over `storeAs`. */
const followedElsewhere = (storeAs: Layer.Layer<RunStore, never, RunStore>) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const { runId } = yield* register({ task: "Compute 6 * 7", mode: "FULL" })
    const fence = yield* claimedBy(runId, "elsewhere")
    const notifications = yield* EventNotifications.make({
      catchUp: Duration.hours(1) // no catch-up read during the test: only notifications wake the followers
    }).pipe(Effect.provide(storeAs))
    return { store, runId, fence, notifications }
  })

/** LISTEN is asynchronous: a probe run's events are appended until one is heard (and so each notified before it). */
const listening = (notifications: Effect.Effect.Success<ReturnType<typeof EventNotifications.make>>) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const probe = yield* register({ task: "Compute 1 + 1", mode: "FULL" })
    const probeFence = yield* claimedBy(probe.runId, "elsewhere")
    const heard = yield* Deferred.make<void>()
    ;(yield* notifications.events(probe.runId, 1))(() => void Deferred.unsafeDone(heard, Exit.void))
    for (let seq = 1; !(yield* Deferred.isDone(heard)); seq++) {
      yield* store.append([event(probe.runId, seq)], undefined, probeFence)
      yield* Deferred.await(heard).pipe(Effect.timeout("100 millis"), Effect.ignore)
    }
  })

/**
 * The store, the next read of a run's events *made* while `held` names that run (taken when the read is asked, not
 * when it answers: under load another follower's later read can answer first) held until its gate is released, what
 * it read staying as read; `read` is done once it has read.
 */
let held:
  | { readonly runId: string; readonly gate: Deferred.Deferred<void>; readonly read: Deferred.Deferred<void> }
  | undefined
const heldAnswers = Layer.effect(
  RunStore,
  Effect.map(RunStore, (store) => ({
    ...store,
    events: (id: string, fromSeq?: number) =>
      Effect.suspend(() => {
        if (held?.runId !== id) return store.events(id, fromSeq)
        const { gate, read } = held
        held = undefined
        return store.events(id, fromSeq).pipe(
          Effect.tap(() => Deferred.succeed(read, undefined)),
          Effect.zipLeft(Deferred.await(gate))
        )
      })
  }))
)

describe.skipIf(backend !== "postgres")("followers of a run executing elsewhere", () => {
  it.scopedLive(
    "share one store read per notification, and each gets every event once, in order",
    () =>
      Effect.gen(function*() {
        const { fence, notifications, runId, store } = yield* followedElsewhere(counted)
        const received = Array.from({ length: FOLLOWERS }, () => [] as Array<number>)
        // every follower has all five events: awaited as they arrive
        const all = yield* Deferred.make<void>()
        for (const got of received) {
          const source = yield* notifications.events(runId, 1)
          source((event: RunEvent) => {
            got.push(event.seq)
            if (received.every((r) => r.length >= 5)) Deferred.unsafeDone(all, Exit.void)
          })
        }
        yield* listening(notifications)
        reads.length = 0
        yield* store.append([event(runId, 1), event(runId, 2), event(runId, 3)], undefined, fence)
        yield* store.append([event(runId, 4), event(runId, 5)], undefined, fence)
        yield* Deferred.await(all).pipe(Effect.timeout("5 seconds"), Effect.ignore)
        for (const got of received) expect(got).toEqual([1, 2, 3, 4, 5])
        // one read per notification (two), not one per follower per notification (forty)
        expect(reads.length).toBeLessThanOrEqual(2)
        expect(reads.length).toBeGreaterThanOrEqual(1)
      }).pipe(
        Effect.provide(Layer.provideMerge(scripted(convergingScript(), { fallback: false }).layer, withNotifications))
      ),
    30_000
  )

  it.scopedLive(
    "followers from seq 0 (a subscription's default) of a run with no event yet get every event from its first (#54.4)",
    () =>
      Effect.gen(function*() {
        // a run its runner had taken but not begun when it was killed: followed from 0 before it has any event, then
        // begun afresh elsewhere. Seqs start at 1: the follower once waited for a seq 0 that never comes.
        const { fence, notifications, runId, store } = yield* followedElsewhere(counted)
        const received = [[], []] as Array<Array<number>>
        const all = yield* Deferred.make<void>()
        for (const [k, got] of received.entries()) {
          const source = yield* notifications.events(runId, k === 0 ? 0 : 1)
          source((event: RunEvent) => {
            got.push(event.seq)
            if (received.every((r) => r.length >= 4)) Deferred.unsafeDone(all, Exit.void)
          })
        }
        yield* listening(notifications)
        yield* store.append([event(runId, 1), event(runId, 2)], undefined, fence)
        yield* store.append([event(runId, 3), finished(runId, 4)], undefined, fence)
        yield* Deferred.await(all).pipe(Effect.timeout("5 seconds"), Effect.ignore)
        expect(received).toEqual([[1, 2, 3, 4], [1, 2, 3, 4]])
      }).pipe(
        Effect.provide(Layer.provideMerge(scripted(convergingScript(), { fallback: false }).layer, withNotifications))
      ),
    30_000
  )

  it.scopedLive(
    "followers joining while the run appends, from any offset (one ahead of the log too), each get every event from theirs once, in order",
    () =>
      Effect.gen(function*() {
        const { fence, notifications, runId, store } = yield* followedElsewhere(lateAnswers)
        const LAST = 40
        const joined: Array<{ readonly from: number; readonly got: Array<number> }> = []
        const all = yield* Deferred.make<void>()
        const complete = () => joined.every(({ from, got }) => got.length >= LAST - from + 1)
        const join = (from: number) =>
          Effect.gen(function*() {
            const follower = { from, got: [] as Array<number> }
            joined.push(follower)
            const source = yield* notifications.events(runId, from)
            const { past } = source((event) => {
              follower.got.push(event.seq)
              if (complete()) Deferred.unsafeDone(all, Exit.void)
            })
            follower.got.unshift(...past.map((e) => e.seq))
            if (complete()) Deferred.unsafeDone(all, Exit.void)
          })
        // the first follower asks from ahead of the log: the mirror must not skip what later followers need
        yield* join(30)
        for (let seq = 1; seq <= LAST; seq++) {
          yield* store.append([event(runId, seq)], undefined, fence)
          // joined while appends go on (not awaited: their replays race the mirror's reads)
          if (seq % 3 === 0) yield* Effect.forkScoped(join(Math.max(1, seq - 7)))
          if (seq % 7 === 0) yield* Effect.forkScoped(join(1))
        }
        yield* Deferred.await(all).pipe(Effect.timeout("10 seconds"), Effect.ignore)
        for (const { from, got } of joined) {
          expect(got, `from ${from}`).toEqual(Array.from({ length: LAST - from + 1 }, (_, i) => from + i))
        }
      }).pipe(
        Effect.provide(Layer.provideMerge(scripted(convergingScript(), { fallback: false }).layer, withNotifications))
      ),
    30_000
  )
  /**
   * Follower F1's replay reads 1–3 and is answered late; F2 reads 1–6 at once and sets the mirror at 6; with
   * `handedOut`, 7–9 (9 the run's end: the mirror ends with it) are appended and handed out to both before F1's replay
   * answers. Nothing is appended after.
   */
  const lateReplay = (handedOut: boolean) =>
    Effect.gen(function*() {
      const { fence, notifications, runId, store } = yield* followedElsewhere(heldAnswers)
      yield* listening(notifications)
      const appended = (from: number, to: number) =>
        store.append(Array.from({ length: to - from + 1 }, (_, i) => event(runId, from + i)), undefined, fence)
      const follow = (got: Array<number>, until: Deferred.Deferred<void>, lastSeq: number) =>
        Effect.map(notifications.events(runId, 1), (source) => {
          const { past } = source((e) => {
            got.push(e.seq)
            if (e.seq >= lastSeq) Deferred.unsafeDone(until, Exit.void)
          })
          got.unshift(...past.map((e) => e.seq))
          if (got.at(-1) === lastSeq) Deferred.unsafeDone(until, Exit.void)
        })
      const lastSeq = handedOut ? 9 : 6
      yield* appended(1, 3)
      const gate = yield* Deferred.make<void>()
      const read = yield* Deferred.make<void>()
      held = { runId, gate, read }
      const late: Array<number> = []
      const lateDone = yield* Deferred.make<void>()
      const lateJoined = yield* Effect.forkScoped(follow(late, lateDone, lastSeq))
      // F1's replay has read 1–3 before 4–6 are appended (it is answered after them)
      yield* Deferred.await(read)
      yield* appended(4, 6)
      const prompt: Array<number> = []
      const promptDone = yield* Deferred.make<void>()
      yield* follow(prompt, promptDone, lastSeq)
      if (handedOut) yield* store.append([event(runId, 7), event(runId, 8), finished(runId, 9)], undefined, fence)
      yield* Deferred.await(promptDone).pipe(Effect.timeout("5 seconds"))
      // every notification so far has woken the mirror (they come in commit order): none is left to wake it later
      yield* listening(notifications)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(lateJoined)
      yield* Deferred.await(lateDone).pipe(Effect.timeout("5 seconds"), Effect.ignore)
      const all = Array.from({ length: lastSeq }, (_, i) => i + 1)
      expect(late).toEqual(all)
      expect(prompt).toEqual(all)
    }).pipe(
      Effect.provide(Layer.provideMerge(scripted(convergingScript(), { fallback: false }).layer, withNotifications))
    )

  it.scopedLive(
    "a follower whose replay is answered late, after the mirror handed out events past it to the run's end, gets every event once",
    () => lateReplay(true),
    30_000
  )

  it.scopedLive(
    "a follower whose replay is answered late, the mirror set past it by another's replay, gets what lies between",
    () => lateReplay(false),
    30_000
  )
})
