import { Context, Deferred, Effect, Fiber, FiberSet, Layer, Option, Ref, Schedule, Schema } from "effect"
import { RunNotFoundError, RunNotWaitingError, type RunRecordDamagedError } from "../domain/Errors.js"
import type { RunEvent } from "../domain/RunEvent.js"
import * as Approval from "../kernel/Approval.js"
import type { ApprovalAnswer } from "../kernel/Approval.js"
import { foldEvents } from "../record/RunRecord.js"
import { resultOf, type RunStatus } from "../record/RunResult.js"
import { cancelledEnd, prepare, type PreparedRun, prepareResume, register, RunLifecycle } from "../run/Run.js"
import { RunStore, type StoredRun, type StoreError } from "../store/RunStore.js"
import { feed, feedBatches, type FeedSource } from "./EventFeed.js"
import { type PersonAnswer, RunEventsElsewhere, RunPlacement } from "./Placement.js"
import type { RunModel } from "./RunModel.js"

/** The server is stopping: no new runs. */
export class ShuttingDownError extends Schema.TaggedError<ShuttingDownError>()("ShuttingDownError", {}) {
  override get message() {
    return "the server is shutting down and accepts no new runs"
  }
}

interface LiveRun {
  readonly prepared: PreparedRun
  readonly userId: string | null
  readonly createdAt: Date
  fiber?: Fiber.RuntimeFiber<unknown, unknown>
  /** Cancelled by a person (on a cluster, any other interruption hands the run over: it stays unfinished). */
  cancelled?: boolean
}

/** A Start the cluster could not take is sent again three times, 100, 200 and 400 ms apart. */
const START_RETRIES = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(3)))

/** Runs as supervised fibers of the server: queued beyond the concurrency limit (in order), one at a time per user. */
export const make = (maxConcurrent: number) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const context = yield* Effect.context<any>()
    const fibers = yield* FiberSet.make()
    const slots = yield* Effect.makeSemaphore(maxConcurrent)
    // one run at a time per user: a lock per user with runs waiting or running, removed when the last one ends
    const perUser = new Map<string, { readonly lock: Effect.Semaphore; holders: number }>()
    const live = new Map<string, LiveRun>()
    const shuttingDown = yield* Ref.make(false)
    let subscriptions = 0
    // on a cluster, a run's entity places it; its events reach this process's subscribers through the store
    const placement = yield* Effect.serviceOption(RunPlacement)
    const elsewhere = yield* Effect.serviceOption(RunEventsElsewhere)
    const clustered = Option.isSome(placement)
    const placementRunner = Option.getOrNull(Option.map(placement, (p) => p.runner))
    /**
     * Whether an interruption leaves the run unfinished (it resumes elsewhere, or on the next start): when the server
     * stops, and on a cluster whenever a person did not cancel it (its shard moved, the runner stops).
     */
    const lifecycleOf = (entry: LiveRun) => ({
      shuttingDown: Effect.map(Ref.get(shuttingDown), (down) => down || (clustered && !entry.cancelled))
    })

    /**
     * On a cluster, the user's turn across runners, held in the store: waited for (polled) after this runner's own
     * lock. It is not given back when the run stops here: a run handed over keeps its turn (its session is still
     * running) and takes it again where it resumes; a finished run's turn is free.
     */
    const clusterTurn = (userId: string, runId: string) => <A, E, R>(e: Effect.Effect<A, E, R>) =>
      !clustered ? e : store.takeTurn(userId, runId).pipe(
        Effect.repeat({ schedule: Schedule.spaced("250 millis"), until: (granted) => granted }),
        Effect.orDie,
        Effect.zipRight(e)
      )

    const userLock =
      (userId: string | null, runId: string) => <A, E, R>(e: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
        if (!userId) return e
        return Effect.acquireUseRelease(
          Effect.sync(() => {
            let u = perUser.get(userId)
            if (!u) perUser.set(userId, u = { lock: Effect.unsafeMakeSemaphore(1), holders: 0 })
            u.holders++
            return u
          }),
          (u) => u.lock.withPermits(1)(clusterTurn(userId, runId)(e)),
          (u) => Effect.sync(() => void (--u.holders === 0 && perUser.delete(userId)))
        )
      }

    const launch = (prepared: PreparedRun, userId: string | null, createdAt: Date) =>
      Effect.gen(function*() {
        const entry: LiveRun = { prepared, userId, createdAt }
        live.set(prepared.runId, entry)
        const started = yield* Deferred.make<void>()
        const run = Deferred.await(started).pipe(
          Effect.zipRight(userLock(userId, prepared.runId)(slots.withPermits(1)(prepared.execute))),
          Effect.provideService(RunLifecycle, lifecycleOf(entry)),
          Effect.ensuring(Effect.sync(() => live.delete(prepared.runId)))
        )
        // interruptible whatever its caller is (start-up recovery runs while the server's layer is built, with
        // interruption off): cancel, a budget's timeout and shutdown interrupt it
        entry.fiber = yield* FiberSet.run(fibers, Effect.interruptible(run))
        yield* Deferred.succeed(started, undefined)
      })

    /**
     * A cancelled run that never began (it waited for a slot or its user's turn) ends CANCELLED all the same: written
     * by the canceller once the run's fiber is gone (an interrupted fiber's finalizer could not wait for the store).
     */
    const endCancelled = (prepared: PreparedRun) =>
      Effect.suspend(() => {
        const record = prepared.events.record()
        if (record.finished) return Effect.void
        return prepared.events.emit(cancelledEnd(resultOf(record).usage)).pipe(
          Effect.zipRight(prepared.events.close),
          Effect.ignore
        )
      })

    const model = (
      row: StoredRun | undefined,
      id: string,
      events: ReadonlyArray<RunEvent>,
      fallback?: LiveRun
    ): RunModel => {
      // a run going on here has its record already (the fold its events keep up to date): not folded again
      const record = fallback?.prepared.events.record() ?? foldEvents(events)
      const result = resultOf(record)
      const started = events.some((e) => e._tag === "RunStarted")
      const status: RunStatus = result.status === "RUNNING" ? (started ? "RUNNING" : "QUEUED") : result.status
      return {
        id,
        userId: row?.userId ?? fallback?.userId ?? null,
        runner: row?.runner ?? placementRunner,
        status,
        createdAt: row?.createdAt ?? fallback?.createdAt ?? new Date(result.startedAt),
        updatedAt: events.length > 0 ? new Date(events[events.length - 1]!.at) : row?.updatedAt ?? new Date(),
        result: {
          ...result,
          runId: id,
          task: result.task || fallback?.prepared.input.task || row?.task || "",
          mode: started ? result.mode : fallback?.prepared.input.mode ?? result.mode
        },
        events,
        record
      }
    }

    const damagedModel = (m: RunModel, row: StoredRun, damaged: RunRecordDamagedError): RunModel => ({
      ...m,
      status: row.status,
      result: { ...m.result, mode: row.mode as RunModel["result"]["mode"] },
      damaged
    })

    const get = (id: string) =>
      Effect.gen(function*() {
        const entry = live.get(id)
        if (entry) return Option.some(model(undefined, id, yield* entry.prepared.events.log, entry))
        const row = yield* store.getRun(id)
        if (Option.isNone(row)) return Option.none<RunModel>()
        // a run whose stored events do not decode is served from its row; what needs its events fails, coded
        return Option.some(
          yield* store.events(id).pipe(
            Effect.map((events) => model(row.value, id, events)),
            Effect.catchTag("RunRecordDamagedError", (damaged) =>
              Effect.as(
                Effect.logWarning(`run ${id} is damaged: event ${damaged.seq}: ${damaged.detail}`),
                damagedModel(model(row.value, id, []), row.value, damaged)
              ))
          )
        )
      })

    /** Records a person's answer on a run going on here (a run that is not is not waiting for anything here). */
    const answerHere = (id: string, a: PersonAnswer) =>
      Effect.gen(function*() {
        const entry = live.get(id)
        if (!entry) {
          const found = yield* getOrFail(id)
          return yield* new RunNotWaitingError({ runId: id, status: found.status })
        }
        const events = entry.prepared.events
        yield* a._tag === "Approval" ?
          Approval.respond(events, a.requestId, a.answer).pipe(Effect.provide(context)) :
          Approval.guide(events, a.requestId, a.text, a.by)
      })

    /** A person's answer, to the run going on here or, on a cluster, sent to its runner; then the run as it is. */
    const answerAnywhere = (id: string, a: PersonAnswer) =>
      Effect.zipRight(
        Option.isNone(placement) || live.has(id) ? answerHere(id, a) : placement.value.answer(id, a),
        getOrFail(id)
      )

    const getOrFail = (id: string) =>
      get(id).pipe(Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new RunNotFoundError({ runId: id })),
        onSome: Effect.succeed
      })))

    /** Interrupts a run going on here as a person's cancellation: it ends CANCELLED (tool calls finish first). */
    const interruptLive = (entry: LiveRun) =>
      Effect.suspend(() => {
        entry.cancelled = true
        return entry.fiber ? Fiber.interrupt(entry.fiber) : Effect.void
      })

    /**
     * On a cluster, the run's entity asks its runner to execute it: taken up (its owner epoch raised, its appends
     * fenced), resumed from its stored events, run to its end. Ends when the run has finished; a run that stopped
     * unfinished (handed over: its shard moved or the runner stops; or fenced by a newer owner) never ends here, so
     * its persisted request is delivered again to the runner that takes it up.
     */
    const runHere = (id: string) =>
      Effect.gen(function*() {
        const entry = live.get(id) ?? (yield* launchStored(id))
        // the entity interrupted (its shard moves to another runner): the run stops here, unfinished (tool calls first)
        if (entry?.fiber) yield* Effect.onInterrupt(Fiber.await(entry.fiber), () => Fiber.interrupt(entry.fiber!))
        const finished = entry ? entry.prepared.events.record().finished : true
        if (!finished) {
          yield* Effect.logWarning(`run ${id} stopped unfinished on this runner; it resumes where it is taken up`)
          return yield* Effect.never
        }
      })

    /** A stored run taken up here (undefined: it had already finished, or is damaged). */
    const launchStored = (id: string) =>
      Effect.gen(function*() {
        const row = yield* store.getRun(id)
        if (Option.isNone(row)) return undefined
        const prepared = yield* prepareResume(id, { claim: Option.getOrUndefined(placement)?.runner }).pipe(
          Effect.provide(context)
        )
        if (prepared.events.record().finished) return undefined
        yield* launch(prepared, row.value.userId, row.value.createdAt)
        return live.get(id)
      }).pipe(
        Effect.catchTag("RunRecordDamagedError", (e) =>
          Effect.as(
            Effect.logError(`run ${id} cannot resume, its record is damaged: event ${e.seq}: ${e.detail}`),
            undefined
          ))
      )

    /** Cancels a run here: one going on is interrupted; one not started here (queued on a cluster) ends CANCELLED. */
    const cancelHere = (id: string) =>
      Effect.gen(function*() {
        const entry = live.get(id) ?? (yield* launchStored(id))
        if (entry) {
          yield* interruptLive(entry)
          if (entry.fiber) yield* Fiber.await(entry.fiber)
          yield* endCancelled(entry.prepared)
        }
      })

    /** A run's events from fromSeq: live here (replay, then what comes), or as stored (a run not running here). */
    const sourceOf = (
      id: string,
      fromSeq: number
    ): Effect.Effect<FeedSource, RunNotFoundError | RunRecordDamagedError | StoreError> =>
      Effect.gen(function*() {
        const entry = live.get(id)
        if (entry) return (push: (event: RunEvent) => void) => entry.prepared.events.follow(fromSeq, push)
        if (Option.isNone(yield* store.getRun(id))) return yield* new RunNotFoundError({ runId: id })
        if (Option.isSome(elsewhere)) return yield* elsewhere.value.source(id, fromSeq)
        const past = yield* store.events(id, fromSeq)
        return () => ({ past, finished: true, stop: () => {} }) // not running here: its stored events are all there is
      })

    return {
      /** Starts a run; `idScope`: the authenticated user a client-chosen runId is scoped to. */
      start: (input: unknown, idScope?: string) =>
        Effect.gen(function*() {
          if (yield* Ref.get(shuttingDown)) {
            return yield* new ShuttingDownError()
          }
          if (Option.isSome(placement)) {
            const { runId } = yield* register(input, { status: "QUEUED", queueBehindUser: true, idScope }).pipe(
              Effect.provide(context)
            )
            // the Start message is persisted and keyed by the run: sending it again after a failure keeps one. Still
            // refused, the run (stored, never started) is forgotten: the client's retry with its runId is accepted
            yield* placement.value.start(runId).pipe(
              Effect.retry(START_RETRIES),
              Effect.tapError(() => Effect.ignore(store.forgetUnstarted(runId)))
            )
            return yield* getOrFail(runId)
          }
          const prepared = yield* prepare(input, { status: "QUEUED", queueBehindUser: true, idScope }).pipe(
            Effect.provide(context)
          )
          const createdAt = new Date()
          yield* launch(prepared, prepared.input.userId ?? null, createdAt)
          return model(undefined, prepared.runId, yield* prepared.events.log, live.get(prepared.runId))
        }),
      cancel: (id: string) =>
        Effect.gen(function*() {
          if (Option.isSome(placement)) {
            const found = yield* getOrFail(id)
            if (found.record.finished) return found
            yield* placement.value.cancel(id)
            return yield* getOrFail(id)
          }
          yield* cancelHere(id)
          return yield* getOrFail(id)
        }),
      runHere,
      cancelHere,
      /** Answers an approval request of a run running here; a run that is not is not waiting for anything. */
      respond: (id: string, requestId: string, answer: ApprovalAnswer) =>
        answerAnywhere(id, { _tag: "Approval", requestId, answer }),
      /** Gives guidance to a run that asked for it (on a cluster, wherever it runs). */
      guide: (id: string, requestId: string, text: string, by?: string) =>
        answerAnywhere(id, { _tag: "Guidance", requestId, text, by }),
      /** On a cluster: a person's answer sent here by the server that received it. */
      answerHere,
      get,
      getOrFail,
      list: store.listRuns,
      /** Replay from fromSeq, then live, as a subscription's iterator of views; a finished run replays from the store. */
      follow: <A>(id: string, fromSeq: number, view: (event: RunEvent) => A) =>
        Effect.map(sourceOf(id, fromSeq), (source) => {
          subscriptions++
          return feed(source, view, () => void subscriptions--)
        }),
      /** The same as lists of events, one per burst (runEventBatches). */
      followBatches: <A>(id: string, fromSeq: number, view: (events: ReadonlyArray<RunEvent>) => A) =>
        Effect.map(sourceOf(id, fromSeq), (source) => {
          subscriptions++
          return feedBatches(source, view, () => void subscriptions--)
        }),
      /** Live runs (a run's first event is RunStarted: one with events has started, one without is queued) and subscriptions; read from memory. */
      stats: (): {
        readonly active: number
        readonly queued: number
        readonly subscriptions: number
        readonly userLocks: number
      } => {
        let active = 0
        for (const e of live.values()) if (e.prepared.events.size() > 0) active++
        return { active, queued: live.size - active, subscriptions, userLocks: perUser.size }
      },
      /** Start-up recovery: runs a dead process left RUNNING or QUEUED continue here. */
      resumeUnfinished: Effect.gen(function*() {
        // on a cluster, each unfinished run's persisted request brings it back on the runner that owns its shard
        if (clustered) return 0
        const rows = yield* store.unfinished
        let resumed = 0
        for (const row of rows) {
          // a run whose stored events do not decode cannot resume: logged with why, left as it is, the rest go on
          const prepared = yield* prepareResume(row.id).pipe(
            Effect.provide(context),
            Effect.map(Option.some),
            Effect.catchTag("RunRecordDamagedError", (e) =>
              Effect.as(
                Effect.logError(`run ${row.id} cannot resume, its record is damaged: event ${e.seq}: ${e.detail}`),
                Option.none()
              ))
          )
          if (Option.isNone(prepared)) {
            continue
          }
          yield* launch(prepared.value, row.userId, row.createdAt)
          resumed++
        }
        return resumed
      }),
      /** Stop accepting runs; interrupt the rest (tool calls finish first) within the timeout; they resume on the next start. */
      shutdown: (timeoutMs: number) =>
        Effect.gen(function*() {
          yield* Ref.set(shuttingDown, true)
          yield* FiberSet.clear(fibers).pipe(Effect.timeout(timeoutMs), Effect.ignore)
        })
    }
  })

export type Service = Effect.Effect.Success<ReturnType<typeof make>>
export class RunManager extends Context.Tag("aeon/RunManager")<RunManager, Service>() {}

export const layer = (maxConcurrent: number) => Layer.scoped(RunManager, make(maxConcurrent))
