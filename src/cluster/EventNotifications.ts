import type * as PgClient from "@effect/sql-pg/PgClient"
import { Clock, Duration, Effect, Exit, Fiber, FiberSet, Layer, Schedule, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { RunEvent } from "../domain/RunEvent.js"
import { endsRun, reachesEnd } from "../record/RunRecord.js"
import type { FeedSource } from "../server/EventFeed.js"
import { RunEventsElsewhere } from "../server/Placement.js"
import { eventsChannel, RunStore } from "../store/RunStore.js"

/** A follower here of a run executing elsewhere: its last event, and where its events go once its replay is read. */
interface Follower {
  last: number
  push: ((event: RunEvent) => void) | undefined
  /** Woken while its replay was read (not ready yet): read again once it is. */
  missed: boolean
  done: boolean
  readonly stop: () => void
}

/** A run's followers in this process, and the one store read they share. */
interface Reader {
  readonly followers: Set<Follower>
  reading: boolean
  again: boolean
}

export interface NotificationOptions {
  /** How often every follower reads the store anyway (a notification lost while the connection was down). */
  readonly catchUp: Duration.DurationInput
  /** How often the LISTEN connection is checked with a ping of its own; silent for three, it is opened again. */
  readonly watch: Duration.DurationInput
  /**
   * The longest a store read for followers may take (default 10 s). A read that never returns would otherwise keep
   * its run's reader busy for good: every later wake, the catch-up's included, would wait behind it, and a follower
   * of a finished run would never get its RunFinished. Past it the read is given up and the next wake reads again.
   */
  readonly readTimeout?: Duration.DurationInput | undefined
}

/**
 * Every `every`, the LISTEN connection is pinged (a notification of its own); heard from last more than three
 * periods ago, it is reopened. On the Clock: tests drive it with TestClock.
 */
export const watchdog = (options: {
  readonly every: Duration.DurationInput
  readonly lastHeard: Effect.Effect<number>
  readonly ping: Effect.Effect<void>
  readonly reopen: Effect.Effect<void>
}) => {
  const silentMs = 3 * Duration.toMillis(options.every)
  const check = Effect.gen(function*() {
    if ((yield* Clock.currentTimeMillis) - (yield* options.lastHeard) > silentMs) {
      yield* Effect.logWarning("the LISTEN connection is silent; opening it again")
      yield* options.reopen
    }
    yield* options.ping
  })
  return Effect.schedule(check, Schedule.spaced(options.every))
}

/**
 * Runs executing on other servers of a cluster, followed here: their fenced appends `pg_notify` `runId:lastSeq` at
 * commit (in commit order); one LISTEN connection per process wakes the followers of that run, which share one read
 * of what the store has past the earliest of their last events, each taking what is past its own (no gap, no
 * duplicate: events are read by seq, never taken from the notification). A periodic catch-up read is the safety net for notifications missed while the connection was down,
 * and a connection that fails or goes silent (its errors are swallowed, Effect-TS/effect#3775) is opened again.
 */
export const make = (pg: PgClient.PgClient, options: NotificationOptions) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    // the store reads a wake starts (from a notification's callback): fibers of this service's scope
    const runFork = yield* FiberSet.makeRuntime<never>()
    // followers are callbacks, not a PubSub with a fiber each: the same choice as RunEvents' followers (bench row 9)
    const readers = new Map<string, Reader>()
    const wake = (runId: string) => {
      const reader = readers.get(runId)
      if (reader) pump(runId, reader)
    }
    const wakeAll = () => readers.forEach((reader, runId) => pump(runId, reader))

    /**
     * One store read per run and wake for all its followers in this process (each gets what is past its own last
     * event); a wake during the read reads again after it. A follower still reading its replay is woken once it has.
     */
    const pump = (runId: string, reader: Reader) => {
      if (reader.reading) {
        reader.again = true
        return
      }
      const ready: Array<Follower> = []
      for (const f of reader.followers) {
        if (f.push) ready.push(f)
        else f.missed = true
      }
      if (ready.length === 0) return
      reader.reading = true
      reader.again = false
      const from = Math.min(...ready.map((f) => f.last)) + 1
      runFork(Effect.timeout(store.events(runId, from), options.readTimeout ?? "10 seconds")).addObserver((exit) => {
        reader.reading = false
        if (Exit.isSuccess(exit)) { for (const f of ready) deliver(f, exit.value) }
        if (reader.again) pump(runId, reader)
      })
    }
    const deliver = (f: Follower, events: ReadonlyArray<RunEvent>) => {
      for (const event of events) {
        if (f.done || event.seq <= f.last) continue
        f.last = event.seq
        f.push!(event)
        if (endsRun(event)) f.stop()
      }
    }

    const token = `ping:${randomUUID()}`
    let heard = yield* Clock.currentTimeMillis
    const listenOnce = Stream.runForEach(pg.listen(eventsChannel), (payload) => {
      if (!payload.startsWith("ping:")) return Effect.sync(() => wake(payload.slice(0, payload.lastIndexOf(":"))))
      return payload === token ? Effect.map(Clock.currentTimeMillis, (now) => void (heard = now)) : Effect.void
    })
    // opened again after a failure; every follower reads the store once it is (what came meanwhile was not heard)
    const listening = listenOnce.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("the LISTEN connection failed; opening it again", cause)),
      Effect.zipRight(Effect.sleep(Duration.seconds(1))),
      Effect.zipRight(Effect.sync(wakeAll)),
      Effect.forever
    )
    const scope = yield* Effect.scope
    let listener = yield* Effect.forkIn(listening, scope)
    yield* Effect.forkScoped(watchdog({
      every: options.watch,
      lastHeard: Effect.sync(() => heard),
      ping: Effect.ignore(pg`SELECT pg_notify(${eventsChannel}, ${token})`),
      reopen: Effect.gen(function*() {
        yield* Fiber.interrupt(listener)
        listener = yield* Effect.forkIn(listening, scope)
        heard = yield* Clock.currentTimeMillis
        wakeAll()
      })
    }))
    yield* Effect.forkScoped(Effect.schedule(Effect.sync(wakeAll), Schedule.spaced(options.catchUp)))

    const source = (runId: string, fromSeq: number) =>
      Effect.gen(function*() {
        let reader = readers.get(runId)
        if (!reader) readers.set(runId, reader = { followers: new Set(), reading: false, again: false })
        const joined = reader
        const follower: Follower = {
          last: fromSeq - 1,
          push: undefined,
          missed: false,
          done: false,
          stop: () => {
            follower.done = true
            joined.followers.delete(follower)
            if (joined.followers.size === 0 && readers.get(runId) === joined) readers.delete(runId)
          }
        }
        joined.followers.add(follower)
        const past = yield* store.events(runId, fromSeq).pipe(Effect.onError(() => Effect.sync(follower.stop)))
        follower.last = past.at(-1)?.seq ?? follower.last
        const finished = reachesEnd(past)
        if (finished) follower.stop()
        const feedSource: FeedSource = (onEvent) => {
          follower.push = onEvent
          // woken while it read its replay: what was committed meanwhile is read now
          if (follower.missed && !follower.done) queueMicrotask(() => pump(runId, joined))
          return { past, finished, stop: follower.stop }
        }
        return feedSource
      })

    return { source }
  })

/** The process's follower of runs executing elsewhere, on the cluster's PostgreSQL. */
export const layer = (pg: PgClient.PgClient, options: NotificationOptions) =>
  Layer.scoped(RunEventsElsewhere, make(pg, options))
