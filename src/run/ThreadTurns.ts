/**
 * A second message while its thread's turn runs (`onBusy`): REJECT refuses it (ThreadBusyError, as before);
 * ENQUEUE (the default) numbers it after the turn under way and starts it once that turn has ended, so it sees that
 * turn's answer; INTERRUPT cancels the turn under way (it ends CANCELLED) and starts the new one once it has. The turn
 * under way is found in the store, so this holds across servers sharing PostgreSQL.
 */
import { Context, Effect, Option, Schedule, Schema } from "effect"
import { isFinal } from "../domain/RunStatus.js"
import { RunStore } from "../store/RunStore.js"
import { Threads } from "../store/Threads.js"

export const OnBusy = Schema.Literal("REJECT", "ENQUEUE", "INTERRUPT").annotations({
  description: "a message while the thread's turn runs: ENQUEUE (default) after it, INTERRUPT it, or REJECT"
})
export type OnBusy = typeof OnBusy.Type

/** How a turn under way is cancelled wherever it runs (runs/LiveRuns); without it, on its stored log. */
export class TurnCancel extends Context.Tag("aeon/TurnCancel")<
  TurnCancel,
  { readonly cancel: (runId: string) => Effect.Effect<void> }
>() {}

/**
 * INTERRUPT: the turn under way cancelled where it runs (a tool call in flight finishes first); it ends CANCELLED.
 * (The library without a run manager has no canceller: the new turn waits, as with ENQUEUE.)
 */
export const interruptTurn = (runId: string) =>
  Effect.flatMap(Effect.serviceOption(TurnCancel), (canceller) =>
    Option.isSome(canceller)
      ? Effect.zipRight(
        Effect.logInfo(`run ${runId}: a new message on its thread interrupts it`),
        canceller.value.cancel(runId)
      )
      : Effect.void)

/** Until the turn `runId` has ended (its stored status, looked at every 250 ms; a failing store is looked at again). */
export const untilTurnEnded = (runId: string) =>
  Effect.flatMap(
    Effect.serviceOption(RunStore),
    (store) =>
      Option.isNone(store) ? Effect.void : store.value.getRun(runId).pipe(
        Effect.map((row) => Option.isNone(row) || isFinal(row.value.status)),
        Effect.orElseSucceed(() => false),
        Effect.repeat({ schedule: Schedule.spaced("250 millis"), until: (ended) => ended }),
        Effect.asVoid
      )
  )

/**
 * A turn taken up again (a restart, another server) waits as it did when it was sent: until the turn before it on its
 * thread has ended (none unfinished: at once, one query).
 */
export const untilEarlierTurnEnded = (runId: string) =>
  Effect.flatMap(
    Effect.serviceOption(Threads),
    (threads) =>
      Option.isNone(threads) ? Effect.void : threads.value.unfinishedBefore(runId).pipe(
        Effect.orElseSucceed(() => Option.none<string>()),
        Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: untilTurnEnded }))
      )
  )
