import {
  Array as Arr,
  Clock,
  Context,
  Deferred,
  Effect,
  Either,
  Exit,
  FiberId,
  Layer,
  Option,
  Scope,
  Stream
} from "effect"
import type { RunEvent, RunEventBody } from "../domain/RunEvent.js"
import { applyEvent, endsRun, foldEvents, reachesEnd, type RunRecord } from "../record/RunRecord.js"
import { extend } from "../support/Extend.js"
import * as RunOutput from "./RunOutput.js"
import * as RunTail from "./RunTail.js"
import type { Following } from "./RunTail.js"
import { type EventSinkService, type LogState, makeWriter, type StoreWaits } from "./RunWriter.js"

export {
  DEFAULT_STORE_OUTAGE_MS,
  type EventSinkService,
  isDurabilityPoint,
  type StoreWaits,
  type WaitOutcome
} from "./RunWriter.js"

export class EventSink extends Context.Tag("aeon/EventSink")<EventSink, EventSinkService>() {}
export const noSink: EventSinkService = { append: () => Effect.void }
export const layerNoSink = Layer.succeed(EventSink, noSink)

/** One run's event stream: sequence-numbered, persisted, then published; late subscribers replay the log. */
export interface RunJournal {
  readonly runId: string
  readonly emit: (body: RunEventBody) => Effect.Effect<RunEvent>
  /** Emits what `decide` makes of the record as it is at that moment (nothing comes in between), or fails with its error. */
  readonly emitWhen: <E>(decide: (record: RunRecord) => Either.Either<RunEventBody, E>) => Effect.Effect<RunEvent, E>
  /**
   * Emits events in one synchronous step: the writer stores them in one commit, so a crash keeps all or none (a
   * pass's end: its profile revision and its PassFinished). `last` is made from the record once the others are in.
   */
  readonly emitAll: (
    bodies: ReadonlyArray<RunEventBody>,
    last: (record: RunRecord) => RunEventBody
  ) => Effect.Effect<ReadonlyArray<RunEvent>>
  /** What `found` sees in the record now, or else what `match` makes of the first later event it matches. */
  readonly waitFor: <A>(
    found: (record: RunRecord) => A | undefined,
    match: (event: RunEvent) => A | undefined
  ) => Effect.Effect<A>
  /** Every event emitted so far (some may still be on their way to the store). */
  readonly log: Effect.Effect<ReadonlyArray<RunEvent>>
  /**
   * The run's record: the fold of its events by the one reducer, applied as each event is emitted. What the kernel
   * reads of the run's state is this (read it, never change it).
   */
  readonly record: () => RunRecord
  /** How many events the run has (without copying its log). */
  readonly size: () => number
  /** Waits until every event emitted so far is stored and published. */
  readonly flushed: Effect.Effect<void>
  /** Ends the log's writer once what was emitted is stored (or the store failed): the run's scope closes. */
  readonly close: Effect.Effect<void>
  /** Replays the stored events from `fromSeq`, then follows live; ends after RunFinished. No gap, no duplicate. */
  readonly changes: (fromSeq?: number) => Stream.Stream<RunEvent>
  /**
   * The same through a plain callback (no fiber per follower: what a server's subscriptions use): the stored
   * events from `fromSeq` now, then `onEvent` with each event as it is stored, until `stop`. `finished`: the
   * run has ended, nothing more will come (`past` holds the rest, if any).
   */
  readonly follow: (fromSeq: number, onEvent: (event: RunEvent) => void) => Following
  /** The live output of the run's model calls as they write it (never stored), ending with the run. */
  readonly output: Stream.Stream<RunOutput.LlmOutputDelta>
  /** The same through callbacks (what a server's `runOutput` subscriptions use). */
  readonly followOutput: RunOutput.RunOutput["follow"]
  /** A model call begins: where its text goes as it is written. */
  readonly openOutput: RunOutput.RunOutput["open"]
}

export type { Following } from "./RunTail.js"

/**
 * A turn of the event loop. Effect runs fibers in microtasks, and a socket is written in the process.nextTick and
 * microtask queues that follow: while the run computes, the I/O of its subscribers waits for the run's next wait on
 * a timer or a socket. A run someone follows takes this turn after each emission, so each event goes out as it is
 * published (bench row 12: one subscriber and 100, over SSE and WebSocket; the delivery times fell by a third to a
 * half with it).
 */
const eventLoopTurn = Effect.interruptible(Effect.async<void>((resume) => {
  // not Effect.yieldNow (Effect's scheduler resumes it in a microtask, a timer only after 2,048 of them: no I/O in
  // between) nor Effect.sleep(0) (a timer: at least 1 ms in Node)
  const immediate = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(immediate))
}))

/**
 * The run's followers, on its tail (journal/RunTail: callbacks the writer calls as it stores). Not PubSub subscriptions:
 * besides their cost (bench row 9), a PubSub's bounded strategies either hold back the publisher (the run) or drop
 * events, where a too slow subscriber should be closed with the point to resume from (EventFeed does that, with its
 * own bounded buffer). A follower's replay is the journal's own log, read in the step it joins.
 */
const makeFollowers = (
  state: LogState,
  events: ReadonlyArray<RunEvent>,
  firstSeq: number,
  ended: () => void,
  tail: RunTail.RunTail
) => {
  /** Marks events stored and hands them to the followers, in one synchronous step (no follower sees one twice). */
  const published = (batch: Arr.NonEmptyReadonlyArray<RunEvent>) => {
    state.storedSeq = Arr.lastNonEmpty(batch).seq
    if (!state.finished && reachesEnd(batch)) {
      state.finished = true
      ended()
    }
    tail.publish(batch)
  }
  const follow = (fromSeq: number, onEvent: (event: RunEvent) => void): Following => {
    const past = events.slice(Math.max(0, fromSeq - firstSeq), Math.max(0, state.storedSeq - firstSeq + 1))
    if (state.finished) return { past, finished: true, stop: () => {} }
    return tail.follow(fromSeq, past, onEvent)
  }
  return { published, follow, followed: () => tail.size() > 0 }
}

/** Fibers waiting for an event (a person's answer): settled as the event is emitted. */
const makeWaits = (record: RunRecord) => {
  /** Each waiting fiber's offer: true when the event is the one it waits for (its wait then ends with it). */
  let awaited: Array<(e: RunEvent) => boolean> = []
  const settle = (event: RunEvent) => {
    if (awaited.length === 0) return
    awaited = awaited.filter((offer) => !offer(event))
  }
  const waitFor = <A>(found: (r: RunRecord) => A | undefined, match: (e: RunEvent) => A | undefined) =>
    Effect.suspend((): Effect.Effect<A> => {
      // checked and registered in one synchronous step: no event can come in between
      const now = found(record)
      if (now !== undefined) return Effect.succeed(now)
      const done = Deferred.unsafeMake<A>(FiberId.none)
      awaited.push((e) => {
        const found = match(e)
        if (found === undefined) return false
        Deferred.unsafeDone(done, Exit.succeed(found))
        return true
      })
      return Deferred.await(done)
    })
  return { settle, waitFor }
}

/** A stream of the run's events from `fromSeq`: what is stored, then live, ending with RunFinished. */
const changesOf = (follow: (fromSeq: number, onEvent: (event: RunEvent) => void) => Following) => (fromSeq = 0) =>
  Stream.async<RunEvent>((emit) => {
    const push = (e: RunEvent) => {
      void emit.single(e)
      if (endsRun(e)) void emit.end()
    }
    const { finished, past, stop } = follow(fromSeq, push)
    for (const e of past) void emit.single(e)
    if (finished) void emit.end()
    return Effect.sync(stop)
  }, "unbounded")

export interface Options {
  /** The least time between two pieces of a model call's live output (AEON_STREAM_INTERVAL_MS). */
  readonly outputIntervalMs?: number | undefined
  /** Told as the run's writes wait for a store that fails, and how long they may (the default: 5 minutes, untold). */
  readonly storeWaits?: StoreWaits | undefined
}

/**
 * The run's tail and live output, on the process's tails when it keeps them (runs/LiveRuns): the followers of the
 * attempt before this one (one that ended waiting for its store) take what they lack from its history, then go on; so
 * do the followers of its live output. `detach` once the attempt has ended.
 */
const attachFollowers = (
  runId: string,
  history: ReadonlyArray<RunEvent>,
  state: LogState,
  scope: Scope.Scope,
  options: Options
) =>
  Effect.map(Effect.serviceOption(RunTail.RunTails), (tails) => {
    const attached = Option.isSome(tails) ? tails.value.attach(runId) : undefined
    const tail = attached?.tail ?? RunTail.make()
    const output = RunOutput.make(runId, {
      intervalMs: options.outputIntervalMs ?? RunOutput.DEFAULT_INTERVAL_MS,
      lastSeq: () => state.lastSeq,
      scope,
      followers: attached?.output
    })
    if (state.finished) output.end()
    if (tail.size() > 0 && history.length > 0) tail.publish(history)
    let detached = false
    const detach = Effect.sync(() => {
      if (Option.isSome(tails) && !detached) tails.value.detach(runId, state.finished)
      detached = true
    })
    return { tail, output, detach }
  })

/** A run's log opened on its history: the events in order, their record (the one fold), where they stand. */
const openLog = (history: ReadonlyArray<RunEvent>) => {
  // appended in place: a run's log grows linearly, never copied per event
  const events: Array<RunEvent> = [...history]
  const record = foldEvents(history)
  const lastSeq = history.at(-1)?.seq ?? 0
  // events up to storedSeq are stored and published
  const state: LogState = {
    lastSeq,
    storedSeq: lastSeq,
    finished: record.finished !== undefined,
    failure: undefined,
    storeWaiting: false
  }
  return { events, record, state }
}

/** How a run's events are made: each in the log and the record at once, then on its way to the store. */
const makeEmitter = (
  runId: string,
  log: ReturnType<typeof openLog>,
  to: {
    /** No store: the events are published as they are made. */
    readonly direct: boolean
    readonly settle: (event: RunEvent) => void
    readonly published: (events: Arr.NonEmptyReadonlyArray<RunEvent>) => void
    readonly followed: () => boolean
    readonly toStore: (events: Arr.NonEmptyReadonlyArray<RunEvent>) => Effect.Effect<void>
  }
) => {
  const { events, record, state } = log
  /** Events made in one synchronous step: in the log and the record at once, then on their way to the store. */
  const emitted = (
    at: number,
    bodies: ReadonlyArray<RunEventBody>,
    last: (r: RunRecord) => RunEventBody
  ): Effect.Effect<Arr.NonEmptyArray<RunEvent>> => {
    const add = (body: RunEventBody) => {
      const event = extend(body, { runId, seq: ++state.lastSeq, at }) as RunEvent
      events.push(event)
      applyEvent(record, event)
      to.settle(event)
      return event
    }
    // (in order: the bodies, then the last one, decided on the record after them)
    const made = Arr.append(bodies.map(add), add(last(record)))
    if (to.direct) to.published(made)
    let next = to.direct ? Effect.void : to.toStore(made)
    // someone follows the run live: their I/O goes out before the run computes on
    if (to.followed()) next = Effect.zipRight(next, eventLoopTurn)
    return next === Effect.void ? Effect.succeed(made) : Effect.as(next, made)
  }
  const emitWhen = <E>(decide: (r: RunRecord) => Either.Either<RunEventBody, E>): Effect.Effect<RunEvent, E> =>
    Effect.flatMap(Clock.currentTimeMillis, (at): Effect.Effect<RunEvent, E> => {
      if (state.failure) return Effect.failCause(state.failure)
      // decided on the record as it is now, and emitted in the same synchronous step
      const decided = decide(record)
      if (Either.isLeft(decided)) return Effect.fail(decided.left)
      return Effect.map(emitted(at, [], () => decided.right), Arr.headNonEmpty)
    }).pipe(Effect.uninterruptible)
  return {
    emit: (body: RunEventBody): Effect.Effect<RunEvent> => emitWhen(() => Either.right(body)),
    emitWhen,
    emitAll: (bodies: ReadonlyArray<RunEventBody>, last: (r: RunRecord) => RunEventBody) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (at) => (state.failure ? Effect.failCause(state.failure) : emitted(at, bodies, last))
      ).pipe(Effect.uninterruptible),
    /** The run's record says it waited for its store: an advisory once its events are stored again (not after its end). */
    waited: (cause: string, waitedMs: number): Effect.Effect<void> =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (at) =>
          record.finished !== undefined ? Effect.void : Effect.asVoid(emitted(at, [], (r) => ({
            _tag: "AdvisoryRaised",
            passNumber: r.current?.passNumber ?? r.lastPassNumber,
            advisory: `the run waited ${Math.round(waitedMs / 100) / 10} s for its store: ${cause}`
          })))
      )
  }
}

export const make = (
  runId: string,
  sink: EventSinkService,
  history: ReadonlyArray<RunEvent> = [],
  options: Options = {}
) =>
  Effect.gen(function*() {
    /** The run's scope: its writer lives in it, and `close` ends it. */
    const scope = yield* Scope.make()
    const log = openLog(history)
    const { events, record, state } = log
    const { detach, output, tail } = yield* attachFollowers(runId, history, state, scope, options)
    const { follow, followed, published } = makeFollowers(state, events, history[0]?.seq ?? 1, output.end, tail)
    const { toStore, waitStored } = yield* makeWriter(
      sink,
      events,
      record,
      state,
      scope,
      published,
      options.storeWaits,
      // (the emitter is made below, with the writer's toStore: the writer calls this only once the run goes)
      (cause, waitedMs) => Effect.suspend(() => emitter.waited(cause, waitedMs))
    )
    const { settle, waitFor } = makeWaits(record)
    const emitter = makeEmitter(runId, log, { direct: sink === noSink, settle, published, followed, toStore })
    return {
      runId,
      emit: emitter.emit,
      emitWhen: emitter.emitWhen,
      emitAll: emitter.emitAll,
      waitFor,
      log: Effect.sync(() => events.slice()),
      record: () => record,
      size: () => events.length,
      flushed: Effect.suspend(() => waitStored(state.lastSeq)),
      close: Effect.suspend(() => Effect.exit(waitStored(state.lastSeq))).pipe(
        Effect.zipRight(Effect.sync(() => output.end(state.finished))),
        Effect.zipRight(detach),
        Effect.zipRight(Scope.close(scope, Exit.void))
      ),
      changes: changesOf(follow),
      follow,
      output: output.stream,
      followOutput: output.follow,
      openOutput: output.open
    } satisfies RunJournal
  })
