import { Context, Effect, Layer, Option } from "effect"
import { RunNotFoundError, type RunRecordDamagedError } from "../domain/Errors.js"
import { endsRun } from "../record/RunRecord.js"
import { RunStore, type StoreError } from "../store/RunStore.js"
import { StoreOutages } from "../store/StoreOutages.js"
import type { FeedSource } from "./EventFeed.js"
import { LiveRuns } from "./LiveRuns.js"
import type { OutputSource } from "./OutputFeed.js"
import * as RunAttempts from "./RunAttempts.js"
import { outputEnd } from "./RunAttempts.js"

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

const make = Effect.gen(function*() {
  const store = yield* RunStore
  const runs = yield* LiveRuns
  const elsewhere = yield* Effect.serviceOption(JournalsElsewhere)
  const outages = Option.getOrUndefined(yield* Effect.serviceOption(StoreOutages))
  const attempts = RunAttempts.make(runs, outages, yield* Effect.runtime<never>())

  const events = (id: string, fromSeq: number): Effect.Effect<FeedSource, FollowError> =>
    Effect.gen(function*() {
      const entry = runs.live(id)
      if (entry) return attempts.throughAttempts(id, fromSeq, entry)
      if (Option.isNone(yield* store.getRun(id))) return yield* new RunNotFoundError({ runId: id })
      if (Option.isSome(elsewhere)) return yield* elsewhere.value.events(id, fromSeq)
      const past = yield* store.events(id, fromSeq)
      return () => ({ past, finished: true, stop: () => {} })
    })

  const output = (id: string): Effect.Effect<OutputSource, FollowError> => {
    const entry = runs.live(id)
    if (entry) return Effect.succeed(entry.prepared.events.followOutput)
    return Effect.map(events(id, 0), outputOfEvents)
  }

  return RunJournals.of({
    events,
    output,
    ended: (id) => attempts.endOf(id, (other) => output(other).pipe(Effect.flatMap(outputEnd), Effect.ignore))
  })
})

export const layer = Layer.effect(RunJournals, make)
