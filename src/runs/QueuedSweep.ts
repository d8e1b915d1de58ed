import { Clock, Duration, Effect, Layer } from "effect"
import { RunStore } from "../store/RunStore.js"
import { onOneProcess } from "../support/Background.js"
import { RunPlacement } from "./Placement.js"

export interface SweepOptions {
  /** How often each runner looks. */
  readonly every: Duration.DurationInput
  /** How long a run may stay QUEUED with no runner before its Start is sent again. */
  readonly after: Duration.DurationInput
}

/**
 * On a cluster, a run is stored QUEUED and then its Start is sent. A server that died between the two (or a Start
 * lost otherwise) leaves a run nothing would ever start: one runner (a singleton) looks for runs QUEUED past `after` that no
 * runner has taken up, and sends their Start again. Sending it twice is harmless: the message is persisted and keyed
 * by the run, so the cluster keeps one. A send refused now is tried at the next look.
 */
export const sweep = (options: SweepOptions) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const placement = yield* RunPlacement
    const once = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const stranded = yield* store.queuedUnowned(now - Duration.toMillis(options.after))
      yield* Effect.forEach(stranded, (runId) =>
        placement.start(runId).pipe(
          Effect.tap(() => Effect.logInfo(`run ${runId} was QUEUED with no runner: its Start was sent again`)),
          Effect.catchAll((e) => Effect.logWarning(`run ${runId}: its Start could not be sent again (${e.message})`))
        ), { discard: true })
    })
    yield* onOneProcess("the queued-run sweep", options.every, once)
  })

export const layer = (options: SweepOptions) => Layer.scopedDiscard(sweep(options))
