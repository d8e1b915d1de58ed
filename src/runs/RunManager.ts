import { Context, Effect, Layer, Option, Schema } from "effect"
import type { RunNotFoundError } from "../domain/Errors.js"
import type { UntrustedPolicy } from "../domain/UntrustedPolicy.js"
import type { ApprovalAnswer } from "../kernel/Approval.js"
import * as Offline from "../llm/Offline.js"
import type * as Fork from "../run/Fork.js"
import * as PolicyCheck from "../run/PolicyCheck.js"
import * as Replaying from "../run/Replaying.js"
import { RunStore, type StoreError } from "../store/RunStore.js"
import type { ToolRegistry } from "../tools/ToolRegistry.js"
import * as Admission from "./Admission.js"
import * as LiveRuns from "./LiveRuns.js"
import type { StartError } from "./LiveRuns.js"
import { type ClusterUnavailableError, type PersonAnswer, RunPlacement } from "./Placement.js"
import * as RunCommands from "./RunCommands.js"
import type { RunModel } from "./RunModel.js"
import * as RunOwners from "./RunOwners.js"
import * as RunReads from "./RunReads.js"

/** The server is stopping: no new runs. */
export class ShuttingDownError extends Schema.TaggedError<ShuttingDownError>()("ShuttingDownError", {}) {
  override get message() {
    return "the server is shutting down and accepts no new runs"
  }
}

/**
 * What the API, the CLI's server and the cluster ask of runs: the commands (start, cancel, answer) sent to where the
 * run executes (runs/RunCommands: here, the process holding it, or on a cluster the runner its entity is on) and the
 * read model's queries.
 */
const make: Effect.Effect<
  Service,
  never,
  RunStore | ToolRegistry | LiveRuns.LiveRuns | RunReads.RunReads | Admission.RunAdmission
> = Effect.gen(function*() {
  const store = yield* RunStore
  const engine = yield* Effect.context<RunStore | ToolRegistry>()
  const runs = yield* LiveRuns.LiveRuns
  const reads = yield* RunReads.RunReads
  const admission = yield* Admission.RunAdmission
  const commands = Option.match(yield* Effect.serviceOption(RunPlacement), {
    onNone: () => RunCommands.here(runs, reads),
    onSome: (cluster) => RunCommands.onCluster(cluster, runs, store)
  })
  const answerHere = RunCommands.answerHere(runs, reads)

  /** A person's answer, to the run going on here or sent to where it goes on; then the run as it is. */
  const answerAnywhere = (id: string, a: PersonAnswer) =>
    Effect.zipRight(runs.live(id) ? answerHere(id, a) : commands.answer(id, a), reads.getOrFail(id))

  return {
    /** Starts a run; `idScope`: the authenticated user a client-chosen runId is scoped to. */
    start: (input: unknown, idScope?: string) =>
      Effect.gen(function*() {
        if (!(yield* runs.accepting)) return yield* new ShuttingDownError()
        const { runId } = yield* commands.place(input, idScope)
        return yield* reads.getOrFail(runId)
      }),
    /** Cancels a run where it executes; a finished run is as it was. */
    cancel: (id: string) =>
      Effect.gen(function*() {
        const found = yield* reads.getOrFail(id)
        if (found.record.finished) return found
        yield* commands.cancel(id)
        return yield* reads.getOrFail(id)
      }),
    /** Forks a run (Fork.create) for the caller and starts the fork where it executes. */
    fork: (id: string, atSeq: number, changes: Fork.ForkChanges, userId: string | undefined) =>
      Effect.gen(function*() {
        if (!(yield* runs.accepting)) return yield* new ShuttingDownError()
        const { runId } = yield* runs.fork(id, atSeq, changes, userId)
        yield* commands.start(runId)
        return yield* reads.getOrFail(runId)
      }),
    /**
     * Runs a run again from its recordings (run/Replaying): its calls answered by them alone — the offline model
     * only fills the slot, none is asked —, in a store of its own in memory; the first divergence, or none.
     */
    replay: (id: string) =>
      Effect.provide(Replaying.replay(id), Layer.merge(Offline.layer, Layer.succeedContext(engine))),
    /** The run's calls with side effects checked again under another untrusted-data policy (run/PolicyCheck). */
    recheck: (id: string, policy: UntrustedPolicy | undefined) =>
      Effect.provide(PolicyCheck.recheck(id, policy), Layer.succeedContext(engine)),
    runHere: runs.runHere,
    cancelHere: runs.cancelHere,
    cancelIfHere: (id: string) => runs.live(id) ? Effect.as(runs.cancelHere(id), true) : Effect.succeed(false),
    runsHere: (id: string) => runs.live(id) !== undefined,
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
  readonly cancel: (runId: string) => Found<RunCommands.CancelFailure>
  readonly fork: (
    runId: string,
    atSeq: number,
    changes: Fork.ForkChanges,
    userId: string | undefined
  ) => Found<ShuttingDownError | Fork.ForkError | ClusterUnavailableError>
  readonly replay: (
    runId: string
  ) => Effect.Effect<
    Effect.Effect.Success<ReturnType<typeof Replaying.replay>>,
    Effect.Effect.Error<ReturnType<typeof Replaying.replay>>
  >
  readonly recheck: (
    runId: string,
    policy: UntrustedPolicy | undefined
  ) => Effect.Effect<
    ReadonlyArray<PolicyCheck.CheckedCall>,
    Effect.Effect.Error<ReturnType<typeof PolicyCheck.recheck>>
  >
  readonly respond: (runId: string, requestId: string, answer: ApprovalAnswer) => Found<RunCommands.AnswerFailure>
  readonly guide: (runId: string, requestId: string, text: string, by?: string) => Found<RunCommands.AnswerFailure>
  /** Sent here by the process a cancellation came to (runs/RunOwners): false when the run does not go on here. */
  readonly cancelIfHere: (runId: string) => Effect.Effect<boolean, StoreError>
  /** Whether the run executes in this process now (or waits here for admission). */
  readonly runsHere: (runId: string) => boolean
  readonly answerHere: (
    runId: string,
    answer: PersonAnswer
  ) => Effect.Effect<unknown, RunCommands.AnswerHereFailure>
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
