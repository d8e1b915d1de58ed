import type * as PgClient from "@effect/sql-pg/PgClient"
import { Duration, Effect, Exit, Fiber, Layer, Runtime, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { RunEvent } from "../domain/RunEvent.js"
import type { FeedSource } from "../server/EventFeed.js"
import { RunEventsElsewhere } from "../server/Placement.js"
import { eventsChannel, RunStore } from "../store/RunStore.js"

export interface NotificationOptions {
  /** How often every follower reads the store anyway (a notification lost while the connection was down). */
  readonly catchUp: Duration.DurationInput
  /** How often the LISTEN connection is checked with a ping of its own; silent for three, it is opened again. */
  readonly watch: Duration.DurationInput
}

/**
 * Runs executing on other servers of a cluster, followed here: their fenced appends `pg_notify` `runId:lastSeq` at
 * commit (in commit order); one LISTEN connection per process wakes the followers of that run, each of which reads
 * what the store has past its last event (no gap, no duplicate: events are read by seq, never taken from the
 * notification). A periodic catch-up read is the safety net for notifications missed while the connection was down,
 * and a connection that fails or goes silent (its errors are swallowed, Effect-TS/effect#3775) is opened again.
 */
export const make = (pg: PgClient.PgClient, options: NotificationOptions) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const runFork = Runtime.runFork(yield* Effect.interruptible(Effect.runtime<never>()))
    // followers are callbacks, not a PubSub with a fiber each: the same choice and figure as RunEvents' followers
    // (bench/FanOut.ts: a fiber per follower was ~115× the time to hand 10,000 events to 100 followers)
    const followers = new Map<string, Set<() => void>>()
    const wake = (runId: string) => followers.get(runId)?.forEach((w) => w())
    const wakeAll = () => followers.forEach((set) => set.forEach((w) => w()))

    const token = `ping:${randomUUID()}`
    let heard = Date.now()
    const listenOnce = Stream.runForEach(pg.listen(eventsChannel), (payload) =>
      Effect.sync(() => {
        if (payload.startsWith("ping:")) {
          if (payload === token) heard = Date.now()
          return
        }
        wake(payload.slice(0, payload.lastIndexOf(":")))
      }))
    // opened again after a failure; every follower reads the store once it is (what came meanwhile was not heard)
    const listening = listenOnce.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("the LISTEN connection failed; opening it again", cause)),
      Effect.zipRight(Effect.sleep(Duration.seconds(1))),
      Effect.zipRight(Effect.sync(wakeAll)),
      Effect.forever
    )
    let listener = yield* Effect.forkScoped(listening)
    const watchMs = Duration.toMillis(options.watch)
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      yield* Effect.sleep(options.watch)
      if (Date.now() - heard > 3 * watchMs) {
        yield* Effect.logWarning("the LISTEN connection is silent; opening it again")
        yield* Fiber.interrupt(listener)
        listener = yield* Effect.forkScoped(listening)
        heard = Date.now()
        wakeAll()
      }
      yield* Effect.ignore(pg`SELECT pg_notify(${eventsChannel}, ${token})`)
    })))
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(options.catchUp), Effect.sync(wakeAll))))

    const source = (runId: string, fromSeq: number) =>
      Effect.gen(function*() {
        let last = fromSeq - 1
        let reading = true // the replay's read: a wake meanwhile reads again after it
        let again = false
        let done = false
        let push: ((event: RunEvent) => void) | undefined
        const stop = () => {
          done = true
          const set = followers.get(runId)
          set?.delete(pump)
          if (set?.size === 0) followers.delete(runId)
        }
        function pump() {
          if (done) return
          if (reading || !push) {
            again = true
            return
          }
          reading = true
          again = false
          runFork(store.events(runId, last + 1)).addObserver((exit) => {
            reading = false
            if (Exit.isSuccess(exit)) deliver(exit.value)
            if (again) pump()
          })
        }
        const deliver = (events: ReadonlyArray<RunEvent>) => {
          for (const event of events) {
            if (done || event.seq <= last) continue
            last = event.seq
            push!(event)
            if (event._tag === "RunFinished") stop()
          }
        }
        let set = followers.get(runId)
        if (!set) followers.set(runId, set = new Set())
        set.add(pump)
        const past = yield* store.events(runId, fromSeq).pipe(Effect.onError(() => Effect.sync(stop)))
        reading = false
        if (past.length > 0) last = past[past.length - 1]!.seq
        const finished = past.some((e) => e._tag === "RunFinished")
        if (finished) stop()
        const feedSource: FeedSource = (onEvent) => {
          push = onEvent
          if (again) queueMicrotask(pump)
          return { past, finished, stop }
        }
        return feedSource
      })

    return { source }
  })

/** The process's follower of runs executing elsewhere, on the cluster's PostgreSQL. */
export const layer = (pg: PgClient.PgClient, options: NotificationOptions) =>
  Layer.scoped(RunEventsElsewhere, make(pg, options))
