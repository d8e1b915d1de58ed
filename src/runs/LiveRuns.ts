import { Cause, Context, Deferred, Effect, Fiber, FiberSet, Layer, Option, Ref } from "effect"
import type { RunNotFoundError } from "../domain/Errors.js"
import { StoreOutageError } from "../domain/Errors.js"
import { EventSink } from "../journal/RunJournal.js"
import { makeTails, RunTails } from "../journal/RunTail.js"
import { resultOf } from "../record/RunResult.js"
import * as Answers from "../run/Answers.js"
import * as Fork from "../run/Fork.js"
import {
  cancelledEnd,
  cannotResume,
  prepare,
  type PreparedRun,
  prepareResume,
  register,
  RunLifecycle,
  type StartError
} from "../run/Run.js"
import { TurnCancel } from "../run/ThreadTurns.js"
import { type Claimant, RunLease } from "../store/RunLease.js"
import { RunStore, type StoreError } from "../store/RunStore.js"
import { StoreOutages } from "../store/StoreOutages.js"
import { RunFencedError } from "../store/StoreValues.js"
import { RunAdmission } from "./Admission.js"
import { type PersonAnswer, RunPlacement } from "./Placement.js"
import { cancelWhereHeld, OwnerAddress } from "./RunOwners.js"

import { type LiveRun, type RunNeeds, RunsHere, type RunsHereView } from "./LiveRun.js"
import { type Leases, leasesOf, letGoOf } from "./RunLeases.js"
import { resumeHere, retakeWhenBack, takeUpLapsed } from "./TakeUp.js"

export type { LiveRun } from "./LiveRun.js"

/** Why a new run is refused (run/Run). */
export type { StartError }

/** The runs this process executes: started, resumed, answered, cancelled, handed over, stopped with the server. */
export interface Execution extends RunsHereView {
  /** False once the server stops: no new runs. */
  readonly accepting: Effect.Effect<boolean>
  /** A new run set up here (its input decoded, stored), ready to launch. */
  readonly prepare: (input: unknown, idScope?: string) => Effect.Effect<PreparedRun, StartError>
  /** A new run stored for the cluster to place (QUEUED, behind its user's other runs). */
  readonly register: (input: unknown, idScope?: string) => Effect.Effect<{ readonly runId: string }, StartError>
  /** A fork of a stored run, stored for `userId` (Fork.create), not started. */
  readonly fork: (
    sourceId: string,
    atSeq: number,
    changes: Fork.ForkChanges,
    userId: string | undefined
  ) => Effect.Effect<{ readonly runId: string }, Fork.ForkError>
  /** A stored unfinished run (a fork) started here, resumed from its events. */
  readonly resume: (runId: string) => Effect.Effect<void, StoreError>
  /** Runs it as a fiber of the server once admitted; interrupting that fiber cancels or hands over the run. */
  readonly launch: (prepared: PreparedRun, userId: string | null, createdAt: Date) => Effect.Effect<void>
  /**
   * On a cluster, the run's entity asks this runner to execute it: taken up (its owner epoch raised, its appends
   * fenced), resumed from its stored events, run to its end. Ends when the run has finished; a run that stopped
   * unfinished (handed over: its shard moved or the runner stops; or fenced by a newer owner) never ends here, so
   * its persisted request is delivered again to the runner that takes it up. A run whose store stayed away past
   * AEON_STORE_OUTAGE_MS is taken up again here once the store answers.
   */
  readonly runHere: (runId: string) => Effect.Effect<void, StoreError>
  /** Cancels a run here: one going on is interrupted; one not started here (queued on a cluster) ends CANCELLED. */
  readonly cancelHere: (runId: string) => Effect.Effect<void, StoreError>
  /** A person's answer to a run going on here. */
  readonly answer: (
    entry: LiveRun,
    answer: PersonAnswer
  ) => Effect.Effect<unknown, Effect.Effect.Error<ReturnType<typeof Answers.answer>>>
  /** Start-up recovery: runs a dead process left RUNNING or QUEUED continue here (none on a cluster). */
  readonly resumeUnfinished: Effect.Effect<number, StoreError | RunNotFoundError>
  /** Stop accepting runs; interrupt the rest (tool calls finish first) within the timeout: they resume later. */
  readonly shutdown: (timeoutMs: number) => Effect.Effect<void>
  /** Runs here that have begun (their first event is RunStarted) and runs waiting for admission. */
  readonly counts: () => { readonly active: number; readonly queued: number }
}

export class LiveRuns extends Context.Tag("aeon/LiveRuns")<LiveRuns, Execution>() {}

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

/** Interrupts a run going on here as a person's cancellation: it ends CANCELLED (tool calls finish first). */
const interruptLive = (entry: LiveRun) =>
  Effect.suspend(() => {
    entry.cancelled = true
    return entry.fiber ? Fiber.interrupt(entry.fiber) : Effect.void
  })

/** A person's answer to a run going on here, recorded on its log. */
const answerLive = (needs: Context.Context<RunNeeds>) => ({ prepared: { events } }: LiveRun, a: PersonAnswer) =>
  Effect.provide(Answers.answer(events, a), needs)

/** Runs here that have begun, and those waiting for admission. */
const countsOf = (live: ReadonlyMap<string, LiveRun>) => {
  let active = 0
  for (const e of live.values()) if (e.prepared.events.record().started) active++
  return { active, queued: live.size - active }
}

/**
 * Whether an interruption leaves the run unfinished (it resumes elsewhere, or on the next start): when the server
 * stops, when another process took the run up (this one lost its hold), and on a cluster whenever a person did not
 * cancel it (its shard moved, the runner stops). Before a call with side effects: whether this process still holds it.
 */
const lifecycle = (shuttingDown: Ref.Ref<boolean>, clustered: boolean, leases: Leases) => (entry: LiveRun) => ({
  shuttingDown: Effect.map(
    Ref.get(shuttingDown),
    (down) => down || entry.lost === true || (clustered && !entry.cancelled)
  ),
  stillHeld: Effect.flatMap(leases.stillHeld(entry.prepared.runId), (held) => {
    if (held) return Effect.void
    entry.lost = true
    return Effect.die(new RunFencedError({ runId: entry.prepared.runId, epoch: -1 }))
  })
})

/**
 * Runs another process took up (this one's renewal no longer holds them): stopped here, writing nothing more (their
 * appends are refused by then in any case); a tool call in flight finishes first.
 */
const stopLost = (live: ReadonlyMap<string, LiveRun>) => (ids: ReadonlyArray<string>) =>
  Effect.forEach(ids, (id) => {
    const entry = live.get(id)
    if (!entry) return Effect.void
    entry.lost = true
    return Effect.zipRight(
      Effect.logWarning(`run ${id} was taken up by another process: it stops here`),
      entry.fiber ? Effect.fork(Fiber.interrupt(entry.fiber)) : Effect.void
    )
  }, { discard: true })

/**
 * How an attempt ends: one whose store stayed away past the bound is taken up again here once it answers (on a
 * cluster too: the run is still this runner's; runHere follows the attempt that takes it up); any other defect is
 * said in the log (the run stays as its record left it; a restart resumes it). `done` once all that is over.
 */
const attemptEnd =
  (entry: LiveRun, retake: (outage: StoreOutageError) => Effect.Effect<unknown>) =>
  <A, E, R>(attempt: Effect.Effect<A, E, R>) =>
    attempt.pipe(
      Effect.catchSomeDefect((d) =>
        d instanceof StoreOutageError ? Option.some(Effect.asVoid(retake(d))) : Option.none()
      ),
      Effect.tapDefect((cause) =>
        Effect.logError(`run ${entry.prepared.runId} stopped here, unfinished: ${Cause.pretty(cause)}`)
      ),
      // (after a retake: the attempt taking the run up again is live by then)
      Effect.ensuring(Deferred.succeed(entry.done, undefined))
    )

/** Where a stored run is taken up here, if it can be (undefined: it had ended, or it is damaged). */
type LaunchStored = (id: string) => Effect.Effect<LiveRun | undefined, StoreError>

/**
 * A cluster's runner runs its entity's run here to its end: taken up if it is not live, followed through the attempts
 * that take it up again; interrupted (its shard moves), it stops here unfinished.
 */
const runHereOf = (live: ReadonlyMap<string, LiveRun>, launchStored: LaunchStored) => (id: string) =>
  Effect.gen(function*() {
    let entry = live.get(id) ?? (yield* launchStored(id))
    while (entry?.fiber) {
      const fiber = entry.fiber
      // the entity interrupted (its shard moves to another runner): the run stops here, unfinished (tool calls first)
      yield* Effect.onInterrupt(Fiber.await(fiber), () => Fiber.interrupt(fiber))
      if (entry.prepared.events.record().finished) break
      // an attempt that ended waiting for its store is followed by the one that took the run up again here
      const next = live.get(id)
      if (next === undefined || next === entry) break
      entry = next
    }
    const finished = entry ? entry.prepared.events.record().finished : true
    if (!finished) {
      yield* Effect.logWarning(`run ${id} stopped unfinished on this runner; it resumes where it is taken up`)
      return yield* Effect.never
    }
  })

/** A person's cancellation of a run here (taken up first when it is not live): it ends CANCELLED. */
const cancelHereOf = (live: ReadonlyMap<string, LiveRun>, launchStored: LaunchStored) => (id: string) =>
  Effect.gen(function*() {
    const entry = live.get(id) ?? (yield* launchStored(id))
    if (!entry) return
    yield* interruptLive(entry)
    if (entry.fiber) yield* Fiber.await(entry.fiber)
    yield* endCancelled(entry.prepared)
  })

/**
 * A prepared run launched here (claimed as it was prepared: held, so an answer or a cancellation given in another
 * process is sent here): live, then
 * run in its own fiber once admitted; let go as it ends.
 */
const launchOf = (here: {
  readonly live: Map<string, LiveRun>
  readonly fibers: FiberSet.FiberSet
  readonly admit: RunAdmission["Type"]["admit"]
  readonly letGo: (ids: ReadonlyArray<string>) => Effect.Effect<void>
  readonly lifecycleOf: (entry: LiveRun) => RunLifecycle["Type"]
  readonly retake: (outage: StoreOutageError) => Effect.Effect<unknown>
}) =>
(prepared: PreparedRun, userId: string | null, createdAt: Date) =>
  Effect.gen(function*() {
    const entry: LiveRun = { prepared, userId, createdAt, done: yield* Deferred.make<void>() }
    here.live.set(prepared.runId, entry)
    const started = yield* Deferred.make<void>()
    const run = Deferred.await(started).pipe(
      Effect.zipRight(here.admit(userId, prepared.runId)(prepared.execute)),
      Effect.provideService(RunLifecycle, here.lifecycleOf(entry)),
      Effect.ensuring(Effect.suspend(() => {
        here.live.delete(prepared.runId)
        return here.letGo([prepared.runId])
      })),
      attemptEnd(entry, here.retake)
    )
    // interruptible whatever its caller is (start-up recovery runs while the server's layer is built, with
    // interruption off): cancel, a budget's timeout and shutdown interrupt it
    entry.fiber = yield* FiberSet.run(here.fibers, Effect.interruptible(run))
    yield* Deferred.succeed(started, undefined)
  })

/** New runs set up here: registered QUEUED behind their user's turn (prepared, or only stored), or forked. */
const newRuns = (
  needs: Context.Context<RunNeeds>,
  live: ReadonlyMap<string, LiveRun>,
  claimant: Effect.Effect<Claimant | undefined>
) => ({
  // claimed as it is registered: this process holds it, its appends fenced (store/RunLease)
  prepare: (input: unknown, idScope: string | undefined) =>
    Effect.provide(
      Effect.flatMap(claimant, (claim) => prepare(input, { status: "QUEUED", queueBehindUser: true, idScope, claim })),
      needs
    ),
  register: (input: unknown, idScope: string | undefined) =>
    Effect.provide(register(input, { status: "QUEUED", queueBehindUser: true, idScope }), needs),
  // a run going on here: what it has emitted is stored first (the API shows its events before they are stored)
  fork: (sourceId: string, atSeq: number, changes: Fork.ForkChanges, userId: string | undefined) =>
    Effect.zipRight(
      live.get(sourceId)?.prepared.events.flushed.pipe(Effect.ignore) ?? Effect.void,
      Effect.provide(Fork.create(sourceId, atSeq, changes, { userId }), needs)
    )
})

/** Stops accepting runs and interrupts the rest (tool calls finish first) within the timeout: they resume later. */
const shutdownOf = (shuttingDown: Ref.Ref<boolean>, fibers: FiberSet.FiberSet) => (timeoutMs: number) =>
  Ref.set(shuttingDown, true).pipe(
    Effect.zipRight(FiberSet.clear(fibers).pipe(Effect.timeout(timeoutMs))),
    Effect.ignore
  )

/** A turn cancelled where it runs: here when it is live here, else in the process holding it (runs/RunOwners). */
const turnCancelOf = (
  base: Context.Context<RunNeeds | RunTails>,
  here: (id: string) => Option.Option<Effect.Effect<void, StoreError>>
) =>
  Effect.map(Effect.serviceOption(EventSink), (sink) => ({
    cancel: (id: string): Effect.Effect<void> =>
      Effect.ignore(Option.getOrElse(here(id), () =>
        Option.isNone(sink)
          ? Effect.void
          : Effect.asVoid(Effect.provide(cancelWhereHeld(id), Context.add(base, EventSink, sink.value)))))
  }))

const make = Effect.gen(function*() {
  const store = yield* RunStore
  const admission = yield* RunAdmission
  const tails = makeTails()
  // every attempt's journal made here publishes into its run's one tail; a turn a new message on its thread
  // interrupts is cancelled where it runs (run/ThreadTurns)
  const base = Context.add(yield* Effect.context<RunNeeds>(), RunTails, tails)
  const needs = Context.add(
    base,
    TurnCancel,
    yield* turnCancelOf(base, (id) => (live.has(id) ? Option.some(cancelHere(id)) : Option.none()))
  )
  const placement = yield* Effect.serviceOption(RunPlacement)
  const clustered = Option.isSome(placement)
  const fibers = yield* FiberSet.make()
  const live = new Map<string, LiveRun>()
  const leases = leasesOf(yield* Effect.serviceOption(RunLease), yield* Effect.serviceOption(OwnerAddress))
  const shuttingDown = yield* Ref.make(false)
  const letGo = letGoOf(leases, shuttingDown)
  const lifecycleOf = lifecycle(shuttingDown, clustered, leases)
  const launch = launchOf({
    live,
    fibers,
    admit: admission.admit,
    letGo,
    lifecycleOf,
    retake: (outage) => retake(outage)
  })

  const outages = yield* Effect.serviceOption(StoreOutages)
  const retake = retakeWhenBack(outages, (id) => launchStored(id))
  /** A stored run taken up here (undefined: it had already finished, or is damaged). */
  const launchStored = (id: string) =>
    Effect.gen(function*() {
      const row = yield* store.getRun(id)
      if (Option.isNone(row)) return undefined
      // a cluster's shard owner takes the run whoever held it; a plain server only one nobody holds (or it did)
      const runner = Option.getOrUndefined(placement)?.runner
      const claim = yield* leases.claimant(runner)
      const prepared = yield* Effect.provide(
        prepareResume(id, { claim: claim && { ...claim, force: clustered } }),
        needs
      )
      if (prepared.events.record().finished) return undefined
      yield* launch(prepared, row.value.userId, row.value.createdAt)
      return live.get(id)
    }).pipe(Effect.catchTags({ ...cannotResume(id), RunNotFoundError: () => Effect.succeed(undefined) }))

  yield* Effect.forkScoped(
    leases.renew(
      () => [...live.keys()],
      stopLost(live),
      clustered ? Option.none() : Option.some(takeUpLapsed({ live, shuttingDown, launchStored, letGo }))
    )
  )

  const runHere = runHereOf(live, launchStored)
  const cancelHere = cancelHereOf(live, launchStored)

  return LiveRuns.of({
    live: (id) => live.get(id),
    tail: tails.get,
    accepting: Effect.map(Ref.get(shuttingDown), (down) => !down),
    ...newRuns(needs, live, leases.claimant()),
    resume: (id) => Effect.asVoid(launchStored(id)),
    launch,
    runHere,
    cancelHere,
    answer: answerLive(needs),
    // on a cluster, each unfinished run's persisted request brings it back on the runner that owns its shard
    resumeUnfinished: clustered ? Effect.succeed(0) : resumeHere(needs, launch, leases.claimant()),
    shutdown: shutdownOf(shuttingDown, fibers),
    counts: () => countsOf(live)
  })
})

/** The runs executing here: their execution (LiveRuns) and the view their readers have of them (RunsHere). */
export const layer = Layer.effect(RunsHere, Effect.map(LiveRuns, (runs): RunsHereView => runs)).pipe(
  Layer.provideMerge(Layer.scoped(LiveRuns, make))
)
