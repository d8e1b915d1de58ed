import { type Duration, Effect, Exit, FiberSet, Layer, Schedule, Stream } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import { reachesEnd } from "../record/RunRecord.js"
import type { FeedSource } from "../runs/EventFeed.js"
import { JournalsElsewhere } from "../runs/RunJournals.js"
import { Notifications } from "../store/Notifications.js"
import { RunStore } from "../store/RunStore.js"
import * as Fanout from "../support/Fanout.js"

/**
 * A run executing elsewhere, mirrored here for its followers: one store read at a time past the last event handed
 * out, and the events read handed to every follower through a Fanout (the same follower mechanism as a run executing
 * here). Each follower takes what is past its own last event.
 */
interface Mirror {
  readonly followers: Fanout.Fanout<RunEvent>
  /** The events handed out so far end here (undefined until a first follower's replay is read). */
  last: number | undefined
  reading: boolean
  again: boolean
  /** Woken before any replay was read: read once one is. */
  missed: boolean
}

export interface NotificationOptions {
  /** How often every follower reads the store anyway (a notification lost while the connection was down). */
  readonly catchUp: Duration.DurationInput
  /**
   * The longest a store read for followers may take (default 10 s). A read that never returns would otherwise keep
   * its run's reader busy for good: every later wake, the catch-up's included, would wait behind it, and a follower
   * of a finished run would never get its RunFinished. Past it the read is given up and the next wake reads again.
   */
  readonly readTimeout?: Duration.DurationInput | undefined
}

/**
 * The process's LISTEN connection (store/Notifications) wakes each run whose event is announced, and every run when it
 * was opened again (what came meanwhile was not heard), as it does every `catchUp` anyway.
 */
const listenForWakes = (options: NotificationOptions, wake: (runId: string) => void, wakeAll: () => void) =>
  Effect.gen(function*() {
    const notices = yield* (yield* Notifications).notices("events")
    yield* Effect.forkScoped(Stream.runForEach(notices, (notice) =>
      Effect.sync(() => {
        if (notice._tag === "Reopened") return wakeAll()
        wake(notice.payload.slice(0, notice.payload.lastIndexOf(":")))
      })))
    yield* Effect.forkScoped(Effect.schedule(Effect.sync(wakeAll), Schedule.spaced(options.catchUp)))
  })

/**
 * Runs executing on other servers of a cluster, followed here (runs/RunJournals' implementation for them): their
 * fenced appends `pg_notify` `runId:lastSeq` at commit (in commit order); one LISTEN connection per process wakes the
 * run's mirror, whose one store read past the last event it handed out goes to all its followers here, each taking
 * what is past its own (no gap, no duplicate: events are read by seq, never taken from the notification). A periodic
 * catch-up read is the safety net for notifications missed while the connection was down, and a connection that
 * fails or goes silent (its errors are swallowed, Effect-TS/effect#3775) is opened again.
 */
export const make = (options: NotificationOptions) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    // the store reads a wake starts (from a notification's callback): fibers of this service's scope
    const runFork = yield* FiberSet.makeRuntime<never>()
    const mirrors = new Map<string, Mirror>()
    const wake = (runId: string) => {
      const mirror = mirrors.get(runId)
      if (mirror) pump(runId, mirror)
    }
    const wakeAll = () => mirrors.forEach((mirror, runId) => pump(runId, mirror))

    /** One store read per run and wake for all its followers here; a wake during the read reads again after it. */
    const pump = (runId: string, mirror: Mirror) => {
      if (mirror.last === undefined) {
        mirror.missed = true
        return
      }
      if (mirror.reading) {
        mirror.again = true
        return
      }
      mirror.reading = true
      mirror.again = false
      const from = mirror.last + 1
      runFork(Effect.timeout(store.events(runId, from), options.readTimeout ?? "10 seconds")).addObserver((exit) => {
        mirror.reading = false
        if (Exit.isSuccess(exit)) handOut(runId, mirror, from, exit.value)
        if (mirror.again && mirrors.get(runId) === mirror) pump(runId, mirror)
      })
    }
    const handOut = (runId: string, mirror: Mirror, from: number, read: ReadonlyArray<RunEvent>) => {
      // a follower joined meanwhile behind where this read began: nothing handed out (it would leave that follower a
      // gap), read again from its point
      if ((mirror.last ?? 0) < from - 1) {
        mirror.again = true
        return
      }
      const events = read.filter((e) => e.seq >= from)
      const lastRead = events.at(-1)
      if (!lastRead) return
      mirror.last = lastRead.seq
      mirror.followers.publish(events)
      // the run's end: no more wakes for it. Its followers stay on the mirror until they stop (each ends with the
      // RunFinished it takes): one whose replay is still being read may yet lower it and have it read again.
      if (reachesEnd(events) && mirrors.get(runId) === mirror) mirrors.delete(runId)
    }

    yield* listenForWakes(options, wake, wakeAll)

    /**
     * A follower joins its run's mirror before its replay is read: what the mirror hands out meanwhile waits, and is
     * given after the replay, past its last event (no gap, no duplicate).
     */
    const events = (runId: string, fromSeq: number) =>
      Effect.gen(function*() {
        let mirror = mirrors.get(runId)
        if (!mirror) {
          mirror = { followers: Fanout.make(), last: undefined, reading: false, again: false, missed: false }
          mirrors.set(runId, mirror)
        }
        const joined = mirror
        // seqs start at 1: a follower from 0 (a subscription's default) waits for seq 1, also when nothing is stored
        let last = Math.max(fromSeq, 1) - 1
        let push: ((event: RunEvent) => void) | undefined
        // handed out while the replay is read, by seq (a read again from a lowered point hands some out twice)
        const early = new Map<number, RunEvent>()
        const leave = joined.followers.add((event) => {
          if (!push) {
            if (event.seq > last) early.set(event.seq, event)
            return
          }
          // the next event only: one past it comes from a read that began above this follower, read again below
          if (event.seq !== last + 1) return
          last = event.seq
          push(event)
        })
        const stop = () => {
          leave()
          if (joined.followers.size() === 0 && mirrors.get(runId) === joined) mirrors.delete(runId)
        }
        const replay = yield* store.events(runId, fromSeq).pipe(Effect.onError(() => Effect.sync(stop)))
        last = replay.at(-1)?.seq ?? last
        // the mirror reads from the earliest last event of its followers (the others skip what they have): lowered,
        // it reads again at once from this follower's point
        const lowered = joined.last !== undefined && last < joined.last
        joined.last = Math.min(joined.last ?? last, last)
        if (joined.missed || lowered) {
          joined.missed = false
          queueMicrotask(() => pump(runId, joined))
        }
        const source: FeedSource = (onEvent) => {
          const past = [...replay]
          for (let next = early.get(last + 1); next; next = early.get(last + 1)) {
            past.push(next)
            last = next.seq
          }
          early.clear()
          push = onEvent
          const finished = reachesEnd(past)
          if (finished) stop()
          return { past, finished, stop }
        }
        return source
      })

    return { events }
  })

/** The process's follower of runs executing elsewhere, on the cluster's PostgreSQL. */
export const layer = (options: NotificationOptions) => Layer.scoped(JournalsElsewhere, make(options))
