import { Clock, Config, Context, Effect, Layer, SubscriptionRef } from "effect"
import { DEFAULT_STORE_OUTAGE_MS, type StoreWaits, type WaitOutcome } from "../journal/RunJournal.js"

/** A run whose events wait for a store that fails: since when, and why. */
export interface WaitingRun {
  readonly runId: string
  readonly cause: string
  readonly since: number
}

/**
 * The runs of this process whose writes wait for a store that fails for a reason that can pass (the disk full, the
 * database away): told by each run's writer (RunJournal's StoreWaits), said in the log, read by `health` and by a CLI
 * run on a terminal. The bound, AEON_STORE_OUTAGE_MS, is how long a run's events may wait before its attempt ends
 * here (it resumes once the store is back).
 */
export interface Service extends StoreWaits {
  /** The waiting runs, as they change. */
  readonly waiting: SubscriptionRef.SubscriptionRef<ReadonlyMap<string, WaitingRun>>
  /** A run whose attempt ended waits to be taken up again once the store answers (a server's), until `unmark`. */
  readonly mark: (runId: string, cause: string) => Effect.Effect<void>
  readonly unmark: (runId: string) => Effect.Effect<void>
}

export class StoreOutages extends Context.Tag("aeon/StoreOutages")<StoreOutages, Service>() {}

export const outageConfig = Config.integer("AEON_STORE_OUTAGE_MS").pipe(
  Config.withDescription("How long a run's events may wait for a failing store before its attempt ends, in ms"),
  Config.validate({ message: "AEON_STORE_OUTAGE_MS must be 1 or more", validation: (n) => n >= 1 }),
  Config.withDefault(DEFAULT_STORE_OUTAGE_MS)
)

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`

const without = (m: ReadonlyMap<string, WaitingRun>, runId: string) => {
  const rest = new Map(m)
  rest.delete(runId)
  return rest
}

export const make = (boundMs: number) =>
  Effect.map(SubscriptionRef.make<ReadonlyMap<string, WaitingRun>>(new Map()), (waiting): Service => {
    const mark = (runId: string, cause: string) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (since) => SubscriptionRef.update(waiting, (m) => new Map(m).set(runId, { runId, cause, since }))
      )
    const unmark = (runId: string) => SubscriptionRef.update(waiting, (m) => without(m, runId))
    const began = (runId: string, cause: string) =>
      Effect.zipRight(
        mark(runId, cause),
        Effect.logWarning(
          `run ${runId} waits for its store: ${cause}; its events are written again until the store answers ` +
            `(at most ${seconds(boundMs)}, AEON_STORE_OUTAGE_MS)`
        )
      )
    const ended = (runId: string, waitedMs: number, outcome: WaitOutcome) => {
      switch (outcome) {
        case "written":
          return Effect.zipRight(
            unmark(runId),
            Effect.logInfo(`run ${runId}: the store answers again after ${seconds(waitedMs)}; the run goes on`)
          )
        // still waiting: to be taken up again once the store answers (whoever takes it up unmarks it)
        case "gave up":
          return Effect.logError(
            `run ${runId}: the store stayed away ${seconds(waitedMs)}; the run stops here, unfinished (what was ` +
              `stored is kept: it resumes from there)`
          )
        case "stopped":
          return unmark(runId)
      }
    }
    return { boundMs, waiting, mark, unmark, began, ended }
  })

export const layer = Layer.effect(StoreOutages, Effect.flatMap(Effect.orDie(outageConfig), make))
