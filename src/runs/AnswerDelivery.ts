import { Clock, Duration, Effect, Exit, Layer, Option, Schedule, Schema, Stream } from "effect"
import { PersonAnswerSchema } from "../run/Answers.js"
import { AnswerInbox, type AnswerOutcome, LEASE_MS } from "../store/AnswerInbox.js"
import { Notifications } from "../store/Notifications.js"
import { LiveRuns } from "./LiveRuns.js"
import { publicFailure } from "./PublicFailure.js"

const decodeAnswer = Schema.decodeUnknown(PersonAnswerSchema)

/**
 * The runs this process executes, held (store/AnswerInbox), and the answers other processes posted for them taken
 * and recorded here, through the runs' own logs: every LEASE_MS / 3 (the holds renewed with it), and at once when
 * PostgreSQL announces one. An answer the run refuses (its request answered already, an edit it cannot take) is
 * settled with the refusal, which the poster reports.
 */
const deliver = (inbox: AnswerInbox["Type"], runs: LiveRuns["Type"]) =>
  Effect.gen(function*() {
    const ids = runs.liveIds()
    if (ids.length === 0) return
    yield* inbox.hold(ids, runs.holder, (yield* Clock.currentTimeMillis) + LEASE_MS)
    for (const posted of yield* inbox.pending(ids)) {
      const entry = runs.live(posted.runId)
      if (!entry || !(yield* inbox.take(posted.id, runs.holder))) continue
      const recorded = yield* Effect.exit(Effect.flatMap(decodeAnswer(posted.answer), (a) => runs.answer(entry, a)))
      const outcome: AnswerOutcome = Exit.match(recorded, {
        onSuccess: () => ({ ok: true }),
        onFailure: (cause) => ({ ok: false, ...publicFailure(cause) })
      })
      yield* inbox.settle(posted.id, outcome)
    }
  })

export const layer = Layer.scopedDiscard(Effect.gen(function*() {
  const inbox = yield* Effect.serviceOption(AnswerInbox)
  if (Option.isNone(inbox) || !inbox.value.shared) return
  const runs = yield* LiveRuns
  const once = yield* Effect.makeSemaphore(1)
  const round = once.withPermits(1)(deliver(inbox.value, runs)).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("posted answers not delivered this time", cause))
  )
  yield* Effect.forkScoped(Effect.schedule(round, Schedule.spaced(Duration.millis(LEASE_MS / 3))))
  // on PostgreSQL, an answer posted is announced (on the process's one LISTEN connection): delivered at once
  const announced = yield* (yield* Notifications).notices("answers")
  yield* Effect.forkScoped(Stream.runForEach(announced, () => round))
}))
