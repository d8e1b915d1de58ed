import { Clock, Context, Effect, Layer, PubSub, Ref, Stream } from "effect"
import type { RunEvent, RunEventBody } from "../domain/RunEvent.js"

/** Where events are persisted before they are published (the store implements it). */
export interface EventSinkService {
  readonly append: (event: RunEvent) => Effect.Effect<void>
}
export class EventSink extends Context.Tag("aeon/EventSink")<EventSink, EventSinkService>() {}
export const noSink: EventSinkService = { append: () => Effect.void }
export const layerNoSink = Layer.succeed(EventSink, noSink)

/** One run's event stream: sequence-numbered, persisted, then published; late subscribers replay the log. */
export interface RunEvents {
  readonly runId: string
  readonly emit: (body: RunEventBody) => Effect.Effect<RunEvent>
  readonly log: Effect.Effect<ReadonlyArray<RunEvent>>
  /** How many events the run has (without copying its log). */
  readonly count: Effect.Effect<number>
  /** Replays from `fromSeq`, then follows live; ends after RunFinished. No gap, no duplicate. */
  readonly stream: (fromSeq?: number) => Stream.Stream<RunEvent>
}

export const make = (runId: string, sink: EventSinkService, history: ReadonlyArray<RunEvent> = []) =>
  Effect.gen(function*() {
    const pubsub = yield* PubSub.unbounded<RunEvent>()
    // appended in place: a run's log grows linearly, never copied per event
    const events: Array<RunEvent> = [...history]
    const firstSeq = history.length === 0 ? 1 : history[0]!.seq
    const seq = yield* Ref.make(history.length === 0 ? 0 : history[history.length - 1]!.seq)
    const emit = (body: RunEventBody) =>
      Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        const n = yield* Ref.updateAndGet(seq, (s) => s + 1)
        const event = { ...body, runId, seq: n, at } as RunEvent
        yield* sink.append(event)
        events.push(event)
        yield* PubSub.publish(pubsub, event)
        return event
      }).pipe(Effect.uninterruptible)
    const stream = (fromSeq = 0): Stream.Stream<RunEvent> =>
      Stream.unwrapScoped(
        Effect.gen(function*() {
          const live = yield* PubSub.subscribe(pubsub)
          const past = events.slice(Math.max(0, fromSeq - firstSeq))
          const last = past.length > 0 ? past[past.length - 1]!.seq : fromSeq - 1
          const finished = past.some((e) => e._tag === "RunFinished")
          const replay = Stream.fromIterable(past)
          if (finished) return replay
          const follow = Stream.fromQueue(live).pipe(
            Stream.filter((e) => e.seq > last),
            Stream.takeUntil((e) => e._tag === "RunFinished")
          )
          return Stream.concat(replay, follow)
        })
      )
    return { runId, emit, log: Effect.sync(() => events.slice()), count: Effect.sync(() => events.length), stream } satisfies RunEvents
  })
