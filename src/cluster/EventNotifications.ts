import { Duration, Effect, Exit, FiberSet, Layer, Stream } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import * as RunTail from "../journal/RunTail.js"
import { reachesEnd } from "../record/RunRecord.js"
import type { FeedSource } from "../runs/EventFeed.js"
import { JournalsElsewhere } from "../runs/RunJournals.js"
import { Notifications } from "../store/Notifications.js"
import { RunStore } from "../store/RunStore.js"
import { inBackground } from "../support/Background.js"

/**
 * A run executing elsewhere, mirrored here for its followers: its tail (journal/RunTail, the one replay-then-live core
 * a run executing here has too), fed by one store read at a time past the last event every follower has.
 */
interface Mirror {
  readonly tail: RunTail.RunTail
  reading: boolean
  again: boolean
  /** Woken while a follower's replay was being read: read once it has started. */
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
    yield* inBackground("the followers' catch-up reads", options.catchUp, Effect.sync(wakeAll))
  })

/**
 * Runs executing on other servers sharing the store — a cluster's runners, or plain servers on one PostgreSQL —,
 * followed here (runs/RunJournals' implementation for them): their
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
      const behind = mirror.tail.behind()
      if (behind === undefined) {
        mirror.missed = true
        return
      }
      if (mirror.reading) {
        mirror.again = true
        return
      }
      mirror.reading = true
      mirror.again = false
      const read = Effect.timeout(store.events(runId, behind + 1), options.readTimeout ?? "10 seconds")
      runFork(read).addObserver((exit) => {
        mirror.reading = false
        if (Exit.isSuccess(exit)) handOut(runId, mirror, exit.value)
        if (mirror.again && mirrors.get(runId) === mirror) pump(runId, mirror)
      })
    }
    const handOut = (runId: string, mirror: Mirror, read: ReadonlyArray<RunEvent>) => {
      if (read.length === 0) return
      // each follower takes what follows its own last event (the tail's cursors): none twice, none skipped
      mirror.tail.publish(read)
      // the run's end: no more wakes for it. Its followers stay on the tail until they stop (each ends with the
      // RunFinished it takes)
      if (reachesEnd(read) && mirrors.get(runId) === mirror) mirrors.delete(runId)
    }

    yield* listenForWakes(options, wake, wakeAll)

    /**
     * A follower joins its run's tail before its replay is read: what the mirror hands out meanwhile waits in it, and
     * is given after the replay, past its last event (no gap, no duplicate).
     */
    const events = (runId: string, fromSeq: number) =>
      Effect.gen(function*() {
        let mirror = mirrors.get(runId)
        if (!mirror) {
          const made: Mirror = { tail: RunTail.make(), reading: false, again: false, missed: false }
          mirrors.set(runId, made)
          mirror = made
        }
        const joined = mirror
        const joining = joined.tail.join(fromSeq)
        const stop = () => {
          joining.stop()
          if (joined.tail.size() === 0 && mirrors.get(runId) === joined) mirrors.delete(runId)
        }
        const replay = yield* store.events(runId, fromSeq).pipe(Effect.onError(() => Effect.sync(stop)))
        const source: FeedSource = (onEvent) => {
          // (the furthest follower before this one joins in)
          const ahead = joined.tail.ahead() ?? 0
          const following = joining.start(replay, onEvent)
          if (following.finished) stop()
          const lowered = (following.past.at(-1)?.seq ?? Math.max(fromSeq, 1) - 1) < ahead
          // woken while no follower had started, or the replay ends below what another follower has: read again at once
          if (joined.missed || lowered) {
            joined.missed = false
            queueMicrotask(() => pump(runId, joined))
          }
          return { ...following, stop }
        }
        return source
      })

    return { events }
  })

/** The process's follower of runs executing elsewhere, on the PostgreSQL it shares with them. */
export const layer = (options: NotificationOptions) => Layer.scoped(JournalsElsewhere, make(options))

/** The follower every server sharing PostgreSQL runs (a cluster's runner or a plain server): a catch-up read every 2 s. */
export const following = layer({ catchUp: Duration.seconds(2) })
