import { Effect, Option, Schedule } from "effect"
import { type ApprovalInputError, type RunNotFoundError, RunNotWaitingError } from "../domain/Errors.js"
import type { AnswerError } from "../kernel/Approval.js"
import { RunStore, type StoreError } from "../store/RunStore.js"
import type { Execution, StartError } from "./LiveRuns.js"
import { type ClusterUnavailableError, ForwardedError, type PersonAnswer, type Placement } from "./Placement.js"
import * as RunOwners from "./RunOwners.js"
import type { Reads } from "./RunReads.js"

/**
 * A run's commands sent where it executes — one implementation per topology, chosen once (the run manager's only
 * "here or on a cluster"): in one process, this one or the process holding the run on the shared store
 * (runs/RunOwners); on a cluster, the runner its entity is on (cluster/Cluster's messages).
 */
export interface RunCommands {
  /** A new run stored and started where it executes: its id. */
  readonly place: (
    input: unknown,
    idScope: string | undefined
  ) => Effect.Effect<{ readonly runId: string }, StartError | ClusterUnavailableError>
  /** A stored run that has not started (a fork) started where it executes. */
  readonly start: (runId: string) => Effect.Effect<void, StoreError | ClusterUnavailableError>
  /** Cancels a run where it executes (an unfinished one nobody executes ends CANCELLED). */
  readonly cancel: (runId: string) => Effect.Effect<void, CancelFailure>
  /** A person's answer to a run that does not go on here, sent to where it does. */
  readonly answer: (runId: string, answer: PersonAnswer) => Effect.Effect<unknown, AnswerFailure>
}

export type CancelFailure = StoreError | ClusterUnavailableError | ForwardedError | RunOwners.OwnerUnreachableError
export type AnswerHereFailure = AnswerError | ApprovalInputError | StoreError | RunNotFoundError
export type AnswerFailure =
  | AnswerHereFailure
  | ClusterUnavailableError
  | ForwardedError
  | RunOwners.OwnerUnreachableError

/** A Start the cluster could not take is sent again three times, 100, 200 and 400 ms apart. */
const START_RETRIES = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(3)))

/** Records a person's answer on a run going on here (a run that is not is not waiting for anything here). */
export const answerHere = (runs: Execution, reads: Reads) => (id: string, a: PersonAnswer) =>
  Effect.gen(function*() {
    const entry = runs.live(id)
    if (entry) return yield* runs.answer(entry, a)
    const found = yield* reads.getOrFail(id)
    return yield* new RunNotWaitingError({ runId: id, status: found.status })
  })

/** The run's owner's refusal, as the manager says a refusal forwarded (its code and words as the owner said them). */
const forwarded = <A, E, R>(sent: Effect.Effect<A, E | RunOwners.OwnerRefused, R>) =>
  Effect.catchIf(
    sent,
    (e): e is RunOwners.OwnerRefused => e instanceof RunOwners.OwnerRefused,
    (e) => Effect.fail(new ForwardedError({ _tag: e.code, message: e.text }))
  )

/**
 * In one process: a new run prepared and launched here (not read back from the store it was just written to); a run
 * another process holds on the shared store is answered and cancelled there; one nobody holds is not waiting for an
 * answer, and a cancellation ends it here.
 */
export const here = (runs: Execution, reads: Reads): RunCommands => {
  const answeredHere = answerHere(runs, reads)
  return {
    place: (input, idScope) =>
      Effect.gen(function*() {
        const prepared = yield* runs.prepare(input, idScope)
        yield* runs.launch(prepared, prepared.input.userId ?? null, new Date())
        return { runId: prepared.runId }
      }),
    start: runs.resume,
    cancel: (id) =>
      runs.live(id) ?
        runs.cancelHere(id) :
        Effect.flatMap(RunOwners.holderOf(id), (holder) =>
          Option.isNone(holder) ? runs.cancelHere(id) : forwarded(RunOwners.cancelAt(holder.value, id)).pipe(
            Effect.flatMap((cancelled) =>
              cancelled ? Effect.void : runs.cancelHere(id)
            )
          )),
    answer: (id, a) =>
      Effect.flatMap(
        RunOwners.holderOf(id),
        (holder) => Option.isNone(holder) ? answeredHere(id, a) : forwarded(RunOwners.answerAt(holder.value, id, a))
      )
  }
}

/**
 * On a cluster: a new run is stored and its entity's Start message sent (persisted and keyed by the run: sending it
 * again after a failure keeps one); still refused, the run (stored, never started) is forgotten — the client's retry
 * with its runId is accepted. Cancel and answer are the entity's messages, wherever it is.
 */
export const onCluster = (cluster: Placement, runs: Execution, store: RunStore["Type"]): RunCommands => ({
  place: (input, idScope) =>
    Effect.gen(function*() {
      const { runId } = yield* runs.register(input, idScope)
      yield* cluster.start(runId).pipe(
        Effect.retry(START_RETRIES),
        Effect.tapError(() => Effect.ignore(store.forgetUnstarted(runId)))
      )
      return { runId }
    }),
  start: (runId) => cluster.start(runId).pipe(Effect.retry(START_RETRIES)),
  cancel: cluster.cancel,
  answer: cluster.answer
})
