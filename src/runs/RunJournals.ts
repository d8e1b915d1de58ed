import { Context, Deferred, Effect, Layer, Option, Stream, SubscriptionRef } from "effect"
import { RunNotFoundError, type RunRecordDamagedError } from "../domain/Errors.js"
import { isFinal } from "../domain/RunStatus.js"
import { endsRun } from "../record/RunRecord.js"
import { RunStore, type StoreError } from "../store/RunStore.js"
import { StoreOutages } from "../store/StoreOutages.js"
import type { FeedSource } from "./EventFeed.js"
import { RunsHere } from "./LiveRun.js"
import type { OutputSource } from "./OutputFeed.js"

export type FollowError = RunNotFoundError | RunRecordDamagedError | StoreError

/**
 * A run's journal as its followers read it, wherever the run executes: its events from an offset — what is stored
 * now, then each event as it is stored, until the run ends (no gap, no duplicate). One interface, an implementation
 * per place: a run executing in this process (its journal/RunJournal, through its attempts), a run of a cluster
 * executing on another server (cluster/EventNotifications: the store, woken by PostgreSQL's notifications), a run
 * executing nowhere (its stored events are all there is).
 */
export interface JournalReads {
  readonly events: (runId: string, fromSeq: number) => Effect.Effect<FeedSource, FollowError>
}

export interface Journals extends JournalReads {
  /** The live output of the run's model calls: of a run executing elsewhere none, ending when the run does. */
  readonly output: (runId: string) => Effect.Effect<OutputSource, FollowError>
  /** Completes when the run has ended (here: its attempts one after another). */
  readonly ended: (runId: string) => Effect.Effect<void>
}

export class RunJournals extends Context.Tag("aeon/RunJournals")<RunJournals, Journals>() {}

/** Runs of a cluster executing on other servers, followed here (provided by the cluster). */
export class JournalsElsewhere extends Context.Tag("aeon/JournalsElsewhere")<JournalsElsewhere, JournalReads>() {}

/** A run's live output when it is not executing here: no pieces, ending when its events say the run has ended. */
const outputOfEvents = (source: FeedSource): OutputSource => (_, onEnd) => {
  let ended = false
  const following = source((e) => {
    if (endsRun(e) && !ended) {
      ended = true
      onEnd()
    }
  })
  const finished = following.finished || following.past.some(endsRun)
  return { past: [], finished, stop: following.stop }
}

/** When a run's live output ends (the run, or its attempt here, has ended). */
const outputEnd = (source: OutputSource) =>
  Effect.async<void>((resume) => {
    const following = source(() => {}, () => resume(Effect.void))
    if (following.finished) resume(Effect.void)
    return Effect.sync(following.stop)
  })

const make = Effect.gen(function*() {
  const store = yield* RunStore
  const runs = yield* RunsHere
  const elsewhere = yield* Effect.serviceOption(JournalsElsewhere)
  const outages = Option.getOrUndefined(yield* Effect.serviceOption(StoreOutages))

  /** The run waits here to be taken up again once its store answers (its attempt ended waiting): until it is. */
  const untilTakenUp = (id: string) =>
    outages ? Stream.runDrain(Stream.takeWhile(outages.waiting.changes, (m) => m.has(id))) : Effect.void

  /**
   * A run's events from fromSeq: of a run executing here, its tail — whatever attempt publishes into it, the one
   * running now or the one that takes up a run waiting for its store — with the replay from the attempt's memory or,
   * between attempts, from the store; of a run executing elsewhere, the cluster's mirror; else what is stored.
   */
  const events = (id: string, fromSeq: number): Effect.Effect<FeedSource, FollowError> =>
    Effect.gen(function*() {
      const entry = runs.live(id)
      if (entry) return (push) => entry.prepared.events.follow(fromSeq, push)
      const tail = runs.tail(id)
      if (tail) {
        const joining = tail.join(fromSeq)
        const replay = yield* store.events(id, fromSeq).pipe(Effect.onError(() => Effect.sync(joining.stop)))
        return (push) => joining.start(replay, push)
      }
      const stored = yield* store.getRun(id)
      if (Option.isNone(stored)) return yield* new RunNotFoundError({ runId: id })
      // a run that has ended is what is stored: nothing more will be announced (a follower from past its end would
      // wait for good)
      if (Option.isSome(elsewhere) && !isFinal(stored.value.status)) return yield* elsewhere.value.events(id, fromSeq)
      const past = yield* store.events(id, fromSeq)
      return () => ({ past, finished: true, stop: () => {} })
    })

  const output = (id: string): Effect.Effect<OutputSource, FollowError> => {
    const entry = runs.live(id)
    if (entry) return Effect.succeed(entry.prepared.events.followOutput)
    return Effect.map(events(id, 0), outputOfEvents)
  }

  /**
   * Completes when the run has ended: its attempts here one after another (one that ended waiting for its store is
   * followed by the one taking the run up again), else (not running here) as its output says — its stored events, or
   * another server of a cluster.
   */
  const ended = (id: string): Effect.Effect<void> =>
    Effect.suspend(() => {
      const entry = runs.live(id)
      if (entry) {
        return Effect.zipRight(
          Deferred.await(entry.done),
          Effect.suspend(() => {
            const next = runs.live(id)
            return entry.prepared.events.record().finished || next === undefined || next === entry
              ? Effect.void
              : ended(id)
          })
        )
      }
      return Effect.flatMap(
        outages ? SubscriptionRef.get(outages.waiting) : Effect.succeed(new Map()),
        (waiting) =>
          waiting.has(id)
            ? Effect.zipRight(untilTakenUp(id), ended(id))
            : output(id).pipe(Effect.flatMap(outputEnd), Effect.ignore)
      )
    })

  return RunJournals.of({ events, output, ended })
})

export const layer = Layer.effect(RunJournals, make)
