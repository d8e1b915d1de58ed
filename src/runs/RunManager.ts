import { Context, Effect, Layer, Option, Schedule, Schema } from "effect"
import { type ApprovalInputError, type RunNotFoundError, RunNotWaitingError } from "../domain/Errors.js"
import type { AnswerError, ApprovalAnswer } from "../kernel/Approval.js"
import type * as Fork from "../run/Fork.js"
import { RunStore, type StoreError } from "../store/RunStore.js"
import * as Admission from "./Admission.js"
import * as LiveRuns from "./LiveRuns.js"
import type { StartError } from "./LiveRuns.js"
import { type ClusterUnavailableError, ForwardedError, type PersonAnswer, RunPlacement } from "./Placement.js"
import type { RunModel } from "./RunModel.js"
import * as RunOwners from "./RunOwners.js"
import * as RunReads from "./RunReads.js"

/** The server is stopping: no new runs. */
export class ShuttingDownError extends Schema.TaggedError<ShuttingDownError>()("ShuttingDownError", {}) {
  override get message() {
    return "the server is shutting down and accepts no new runs"
  }
}

/** A Start the cluster could not take is sent again three times, 100, 200 and 400 ms apart. */
const START_RETRIES = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(3)))

/** The run's owner's refusal, as the manager says a refusal forwarded (its code and words as the owner said them). */
const forwarded = <A, E, R>(sent: Effect.Effect<A, E | RunOwners.OwnerRefused, R>) =>
  Effect.catchIf(
    sent,
    (e): e is RunOwners.OwnerRefused => e instanceof RunOwners.OwnerRefused,
    (e) => Effect.fail(new ForwardedError({ _tag: e.code, message: e.text }))
  )

/**
 * A run's commands where it executes, outside a cluster: here, or at the process holding it on the shared store
 * (runs/RunOwners); a run nobody holds is not waiting for an answer, and a cancellation ends it here.
 */
const owners = (runs: LiveRuns.Execution, reads: RunReads.Reads) => {
  /** Records a person's answer on a run going on here (a run that is not is not waiting for anything here). */
  const answerHere = (id: string, a: PersonAnswer) =>
    Effect.gen(function*() {
      const entry = runs.live(id)
      if (entry) return yield* runs.answer(entry, a)
      const found = yield* reads.getOrFail(id)
      return yield* new RunNotWaitingError({ runId: id, status: found.status })
    })
  return {
    answerHere,
    /** A run not going on here: its answer sent to the process holding it, if one does (else: it is not waiting). */
    answerHolder: (id: string, a: PersonAnswer) =>
      Effect.flatMap(
        RunOwners.holderOf(id),
        (holder) => Option.isNone(holder) ? answerHere(id, a) : forwarded(RunOwners.answerAt(holder.value, id, a))
      ),
    /** Cancels a run here, or at the process holding it (one going on there); one nobody runs ends CANCELLED here. */
    cancelHere: (id: string): Effect.Effect<void, StoreError | ForwardedError | RunOwners.OwnerUnreachableError> =>
      runs.live(id) ?
        runs.cancelHere(id) :
        Effect.flatMap(
          RunOwners.holderOf(id),
          (holder) =>
            Option.isNone(holder) ? runs.cancelHere(id) : forwarded(RunOwners.cancelAt(holder.value, id)).pipe(
              Effect.flatMap((cancelled) => cancelled ? Effect.void : runs.cancelHere(id))
            )
        )
  }
}

/**
 * What the API, the CLI's server and the cluster ask of runs: the commands (start, cancel, answer) sent to where the
 * run executes — this process, or on a cluster the runner its entity is on — and the read model's queries.
 */
const make: Effect.Effect<
  Service,
  never,
  RunStore | LiveRuns.LiveRuns | RunReads.RunReads | Admission.RunAdmission
> = Effect.gen(function*() {
  const store = yield* RunStore
  const runs = yield* LiveRuns.LiveRuns
  const reads = yield* RunReads.RunReads
  const admission = yield* Admission.RunAdmission
  const placement = Option.getOrUndefined(yield* Effect.serviceOption(RunPlacement))

  const { answerHere, answerHolder, cancelHere } = owners(runs, reads)

  /**
   * A person's answer, to the run going on here or sent to its owner: on a cluster its runner (the run entity's
   * message), else the process holding it on the shared store (runs/RunOwners); then the run as it is.
   */
  const answerAnywhere = (id: string, a: PersonAnswer) =>
    Effect.zipRight(
      runs.live(id) ? answerHere(id, a) : placement ? placement.answer(id, a) : answerHolder(id, a),
      reads.getOrFail(id)
    )

  /**
   * On a cluster, the run is stored and its entity's Start message sent (persisted and keyed by the run: sending it
   * again after a failure keeps one). Still refused, the run (stored, never started) is forgotten: the client's retry
   * with its runId is accepted.
   */
  const startOnCluster = (input: unknown, idScope: string | undefined, cluster: NonNullable<typeof placement>) =>
    Effect.gen(function*() {
      const { runId } = yield* runs.register(input, idScope)
      yield* cluster.start(runId).pipe(
        Effect.retry(START_RETRIES),
        Effect.tapError(() => Effect.ignore(store.forgetUnstarted(runId)))
      )
      return yield* reads.getOrFail(runId)
    })

  const startHere = (input: unknown, idScope: string | undefined) =>
    Effect.gen(function*() {
      const prepared = yield* runs.prepare(input, idScope)
      yield* runs.launch(prepared, prepared.input.userId ?? null, new Date())
      return yield* reads.getOrFail(prepared.runId)
    })

  return {
    /** Starts a run; `idScope`: the authenticated user a client-chosen runId is scoped to. */
    start: (input: unknown, idScope?: string) =>
      Effect.gen(function*() {
        if (!(yield* runs.accepting)) return yield* new ShuttingDownError()
        return yield* (placement ? startOnCluster(input, idScope, placement) : startHere(input, idScope))
      }),
    cancel: (id: string) =>
      Effect.gen(function*() {
        if (!placement) {
          yield* cancelHere(id)
          return yield* reads.getOrFail(id)
        }
        const found = yield* reads.getOrFail(id)
        if (found.record.finished) return found
        yield* placement.cancel(id)
        return yield* reads.getOrFail(id)
      }),
    /** Forks a run (Fork.create) for the caller and starts the fork here or, on a cluster, where it is placed. */
    fork: (id: string, atSeq: number, changes: Fork.ForkChanges, userId: string | undefined) =>
      Effect.gen(function*() {
        if (!(yield* runs.accepting)) return yield* new ShuttingDownError()
        const { runId } = yield* runs.fork(id, atSeq, changes, userId)
        yield* (placement ? placement.start(runId).pipe(Effect.retry(START_RETRIES)) : runs.resume(runId))
        return yield* reads.getOrFail(runId)
      }),
    runHere: runs.runHere,
    cancelHere: runs.cancelHere,
    cancelIfHere: (id: string) => runs.live(id) ? Effect.as(runs.cancelHere(id), true) : Effect.succeed(false),
    /** Answers an approval request of a run (on a cluster, wherever it runs). */
    respond: (id: string, requestId: string, answer: ApprovalAnswer) =>
      answerAnywhere(id, { _tag: "Approval", requestId, answer }),
    /** Gives guidance to a run that asked for it (on a cluster, wherever it runs). */
    guide: (id: string, requestId: string, text: string, by?: string) =>
      answerAnywhere(id, { _tag: "Guidance", requestId, text, by }),
    /** On a cluster: a person's answer sent here by the server that received it. */
    answerHere,
    get: reads.get,
    getOrFail: reads.getOrFail,
    list: reads.list,
    follow: reads.follow,
    followBatches: reads.followBatches,
    followOutput: reads.followOutput,
    followStoreWaits: reads.followStoreWaits,
    storeWait: reads.storeWait,
    /** Runs here (begun, waiting for admission), open subscriptions and users holding a turn; read from memory. */
    stats: () => ({ ...runs.counts(), subscriptions: reads.subscriptions(), userLocks: admission.userLocks() }),
    resumeUnfinished: runs.resumeUnfinished,
    shutdown: runs.shutdown
  }
})

type AnswerFailure =
  | AnswerError
  | ApprovalInputError
  | ClusterUnavailableError
  | ForwardedError
  | RunOwners.OwnerUnreachableError
type Found<E> = Effect.Effect<RunModel, E | StoreError | RunNotFoundError>

export interface Service extends
  Pick<
    RunReads.Reads,
    | "get"
    | "getOrFail"
    | "list"
    | "follow"
    | "followBatches"
    | "followOutput"
    | "followStoreWaits"
    | "storeWait"
  >,
  Pick<LiveRuns.Execution, "runHere" | "cancelHere" | "resumeUnfinished" | "shutdown">
{
  readonly start: (input: unknown, idScope?: string) => Found<ShuttingDownError | StartError | ClusterUnavailableError>
  readonly cancel: (runId: string) => Found<ClusterUnavailableError | ForwardedError | RunOwners.OwnerUnreachableError>
  readonly fork: (
    runId: string,
    atSeq: number,
    changes: Fork.ForkChanges,
    userId: string | undefined
  ) => Found<ShuttingDownError | Fork.ForkError | ClusterUnavailableError>
  readonly respond: (runId: string, requestId: string, answer: ApprovalAnswer) => Found<AnswerFailure>
  readonly guide: (runId: string, requestId: string, text: string, by?: string) => Found<AnswerFailure>
  /** Sent here by the process a cancellation came to (runs/RunOwners): false when the run does not go on here. */
  readonly cancelIfHere: (runId: string) => Effect.Effect<boolean, StoreError>
  readonly answerHere: (
    runId: string,
    answer: PersonAnswer
  ) => Effect.Effect<unknown, AnswerError | ApprovalInputError | StoreError | RunNotFoundError>
  readonly stats: () => {
    readonly active: number
    readonly queued: number
    readonly subscriptions: number
    readonly userLocks: number
  }
}
export class RunManager extends Context.Tag("aeon/RunManager")<RunManager, Service>() {}

/** The run manager over its parts: admission, the runs executing here, the read model. */
export const layer = (maxConcurrent: number) =>
  Layer.effect(RunManager, make).pipe(
    Layer.provideMerge(RunReads.layer),
    Layer.provideMerge(LiveRuns.layer),
    Layer.provideMerge(RunOwners.addressLayer),
    Layer.provideMerge(Admission.layer(maxConcurrent))
  )
