import { Context, Effect, FiberSet, Layer, Option, Ref } from "effect"
import type { RunNotFoundError } from "../domain/Errors.js"
import { EventSink } from "../journal/RunJournal.js"
import { makeTails, RunTails } from "../journal/RunTail.js"
import * as Answers from "../run/Answers.js"
import * as Fork from "../run/Fork.js"
import { cannotResume, prepare, type PreparedRun, prepareResume, register, type StartError } from "../run/Run.js"
import { TurnCancel } from "../run/ThreadTurns.js"
import { type Claimant, RunLease } from "../store/RunLease.js"
import { RunStore, type StoreError } from "../store/RunStore.js"
import { StoreOutages } from "../store/StoreOutages.js"
import { RunAdmission } from "./Admission.js"
import { launchOf, lifecycle, stopLost } from "./Attempts.js"
import { type LiveRun, type RunNeeds, RunsHere, type RunsHereView } from "./LiveRun.js"
import { cancelHereOf, runHereOf } from "./OnRunner.js"
import { type PersonAnswer, RunPlacement } from "./Placement.js"
import { leasesOf, letGoOf } from "./RunLeases.js"
import { cancelWhereHeld, OwnerAddress } from "./RunOwners.js"
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

/** A person's answer to a run going on here, recorded on its log. */
const answerLive = (needs: Context.Context<RunNeeds>) => ({ prepared: { events } }: LiveRun, a: PersonAnswer) =>
  Effect.provide(Answers.answer(events, a), needs)

/** Runs here that have begun, and those waiting for admission. */
const countsOf = (live: ReadonlyMap<string, LiveRun>) => {
  let active = 0
  for (const e of live.values()) if (e.prepared.events.record().started) active++
  return { active, queued: live.size - active }
}

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
