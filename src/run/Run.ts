import { type Context, Effect, Option } from "effect"
import { runToolNames } from "../agents/AgentRequest.js"
import { type InvalidOutputSchemaError, type InvalidRunInputError, RunNotFoundError } from "../domain/Errors.js"
import type { RunEvent } from "../domain/RunEvent.js"
import * as RunJournal from "../journal/RunJournal.js"
import { RunLifecycle } from "../kernel/RunContext.js"
import { reachesEnd } from "../record/RunRecord.js"
import { resultFromEvents, type RunResult } from "../record/RunResult.js"
import { type Claimant, RunLease } from "../store/RunLease.js"
import { RunStore, sinkOf, type StoredRun } from "../store/RunStore.js"
import { RunHeldElsewhereError } from "../store/StoreValues.js"
import { agentCaps } from "./AgentRuns.js"
import { attachedOf } from "./Attachments.js"
import type { ChildRunner, Lineage } from "./ChildRuns.js"
import { execute } from "./Execute.js"
import { replayFor } from "./ForkModel.js"
import { storedTriggers, withoutTriggers } from "./InputGuard.js"
import { asLogged } from "./MemoryReplay.js"
import { register, type RegisterOptions, scopedRunId, type StartError } from "./Registration.js"
import { decodeRunInput, type RunTaskInput } from "./RunInput.js"
import { type Capabilities, capabilities, outputIntervalConfig } from "./Session.js"
import { untilEarlierTurnEnded, untilTurnEnded } from "./ThreadTurns.js"

/**
 * A run prepared: a new one registered (its input decoded and checked, stored), or one a dead process left resumed
 * from its log; its capabilities (an agent's model and tools among them) and its journal set up. run/Execute runs it.
 */
export { RunLifecycle }
export { register, type RegisterOptions, scopedRunId, type StartError }
export { type Capabilities, capabilities, outputIntervalConfig }
export { cancelledEnd } from "./Execute.js"

export interface PreparedRun {
  readonly runId: string
  readonly input: RunTaskInput
  readonly events: RunJournal.RunJournal
  /** Runs to the end; interrupting it cancels the run (tool calls in progress complete first). */
  readonly execute: Effect.Effect<RunResult>
}

/**
 * The attempt's sink. A run taken up (`claim`, store/RunLease) has its epoch raised and is held here; on a shared
 * store its appends are fenced with that epoch: once another process takes it up, they are refused. None while
 * another process's hold on it lasts (RunHeldElsewhereError).
 */
const claimedSink = (runId: string, claim: Claimant | undefined, unfenced: RunJournal.EventSinkService) =>
  Effect.gen(function*() {
    const lease = yield* Effect.serviceOption(RunLease)
    const store = yield* Effect.serviceOption(RunStore)
    if (claim === undefined || Option.isNone(lease) || Option.isNone(store)) return unfenced
    const fence = yield* lease.value.claim(runId, claim)
    if (Option.isNone(fence)) return yield* new RunHeldElsewhereError({ runId })
    return lease.value.shared ? sinkOf(store.value, fence.value) : unfenced
  })

/**
 * Decodes the input (bad input: a clear error, nothing started) and sets up the run's event stream. `claim`: the
 * process that executes it holds it (store/RunLease), its appends fenced.
 */
export const prepare = (
  rawInput: unknown,
  options: RegisterOptions & { readonly lineage?: Lineage | undefined; readonly claim?: Claimant | undefined } = {}
): Effect.Effect<PreparedRun, StartError, Effect.Effect.Context<typeof capabilities>> =>
  Effect.gen(function*() {
    const known = yield* capabilities
    const { after, input, inputTriggers, runId } = yield* register(rawInput, options)
    // a run registered here is this process's to begin with (`force`: whoever else looked at it meanwhile)
    const sink = yield* claimedSink(runId, options.claim && { ...options.claim, force: true }, known.sink).pipe(
      Effect.catchTag("RunHeldElsewhereError", Effect.die)
    )
    const agent = yield* agentCaps(known, input, {
      runId,
      lineage: options.lineage ?? { depth: 0 },
      children: childRunner(yield* Effect.context<Effect.Effect.Context<typeof capabilities>>())
    })
    const caps = { ...known, ...agent, attached: yield* attachedOf(input) }
    const events = yield* RunJournal.make(runId, sink, [], {
      outputIntervalMs: caps.outputIntervalMs,
      storeWaits: caps.storeWaits
    })
    // a turn sent while its thread's turn ran starts once that turn has ended (run/ThreadTurns)
    const run = execute(caps, input, runId, events, { inputTriggers })
    return { runId, input, events, execute: after === undefined ? run : Effect.zipRight(untilTurnEnded(after), run) }
  })

/**
 * A child run (an agent called as a tool) run to its end in the parent's services: started, or — when the parent's
 * step is reopened after a crash — resumed from its log (a finished one answers with its result).
 */
const childRunner =
  (context: Context.Context<Effect.Effect.Context<typeof capabilities>>): ChildRunner =>
  (request, { depth, parentRunId, runId }) =>
    Effect.gen(function*() {
      const store = yield* Effect.serviceOption(RunStore)
      const existing = Option.isSome(store)
        ? yield* Effect.orElseSucceed(store.value.getRun(runId), () => Option.none())
        : Option.none()
      const prepared = Option.isSome(store) && Option.isSome(existing)
        ? yield* Effect.provideService(prepareResume(runId, { lineage: { parentRunId, depth } }), RunStore, store.value)
        : yield* prepare(request, { runId, parentRunId, queueBehindUser: true, lineage: { parentRunId, depth } })
      return yield* prepared.execute
    }).pipe(
      Effect.provide(context),
      Effect.mapError((e) => ({ message: "message" in e && typeof e.message === "string" ? e.message : e._tag }))
    )

/** Runs a task to its end and returns the result. */
export const runTask = (input: unknown) => prepare(input).pipe(Effect.flatMap((p) => p.execute))

/**
 * A run a dead process left unfinished, set up to continue from its persisted events (same sequence). `claim`: the
 * process taking it up holds it first (store/RunLease: its owner epoch raised before its events are read; refused
 * while another's hold lasts), and its appends are fenced with that epoch: once another takes it up, they are refused
 * and it stops.
 */
export const prepareResume = (
  runId: string,
  options: {
    readonly claim?: Claimant | undefined
    readonly pureReplay?: boolean | undefined
    /** The run's events and (a fork's) its source's, when the caller has just read or written them. */
    readonly known?: { readonly past: ReadonlyArray<RunEvent>; readonly source?: ReadonlyArray<RunEvent> } | undefined
    /** A child run resumed by its parent's call. */
    readonly lineage?: Lineage | undefined
  } = {}
) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const base = yield* capabilities
    const stored = yield* store.getRun(runId)
    if (Option.isNone(stored)) return yield* new RunNotFoundError({ runId })
    const input = yield* decodeRunInput(
      withoutTriggers(stored.value.input),
      runToolNames(base.tools.names, base.agents)
    )
    // a run of an agent runs with the definition it recorded (its model, its tools), not the agent as it is now
    const known = {
      ...base,
      ...(yield* agentCaps(base, input, {
        runId,
        lineage: options.lineage ?? { depth: 0, parentRunId: stored.value.parentRunId ?? undefined },
        children: childRunner(yield* Effect.context<Effect.Effect.Context<typeof capabilities>>())
      }))
    }
    const sink = yield* claimedSink(runId, options.claim, known.sink)
    const past = options.known?.past ?? (yield* store.events(runId))
    // a fork's calls are answered from its source's recordings until one differs
    const replay = yield* replayFor(past, known, { pure: options.pureReplay, source: options.known?.source })
    const replaying = replay.model === known.model ? known : { ...known, ...replay }
    // its memory as its log (a fork's: its source's) has it, not as the store has it now
    const forkedFrom = past[0]?._tag === "RunForked" ? past[0].from : undefined
    const logged = options.known?.source ??
      (forkedFrom ? yield* Effect.orElseSucceed(store.events(forkedFrom), () => past) : past)
    const withMemory = replaying.memories ? { ...replaying, memories: asLogged(logged, replaying.memories) } : replaying
    // a fork's or a replay's conversation as its source quoted it, not as the thread is now
    const quoted = forkedFrom ? logged.find((e) => e._tag === "ConversationQuoted") : undefined
    const quotedCaps = quoted?._tag === "ConversationQuoted"
      ? { ...withMemory, loggedConversation: quoted }
      : withMemory
    const caps = { ...quotedCaps, attached: yield* attachedOf(input) }
    const events = yield* RunJournal.make(runId, sink, past, {
      outputIntervalMs: caps.outputIntervalMs,
      storeWaits: caps.storeWaits
    })
    const finished = reachesEnd(past)
    const run: PreparedRun = {
      runId,
      input,
      events,
      execute: finished
        ? Effect.succeed(resultFromEvents(past))
        : Effect.zipRight(
          // a turn of a thread (registration joined one only for a threadId): after the turn before it
          input.threadId === undefined ? Effect.void : untilEarlierTurnEnded(runId),
          execute(caps, input, runId, events, {
            past: past.length > 0 ? past : undefined,
            live: replaying === known,
            inputTriggers: storedTriggers(stored.value.input)
          })
        )
    }
    return run
  })

/** Start-up recovery: every run left RUNNING or QUEUED continues to its end. */
/**
 * A stored run that cannot resume — its events do not decode, or its input no longer does (a tool it names is gone,
 * say an MCP server's) — is logged with why and left as it is (undefined); the other runs go on. The one rule for
 * every place that resumes runs.
 */
export const cannotResume = (id: string) => ({
  RunHeldElsewhereError: () =>
    Effect.as(Effect.logInfo(`run ${id} goes on in the process holding it: left to it`), undefined),
  RunRecordDamagedError: (e: { readonly seq: number; readonly detail: string }) =>
    Effect.as(
      Effect.logError(`run ${id} cannot resume, its record is damaged: event ${e.seq}: ${e.detail}`),
      undefined
    ),
  InvalidRunInputError: (e: InvalidRunInputError) =>
    Effect.as(Effect.logError(`run ${id} cannot resume, its input no longer decodes: ${e.message}`), undefined),
  InvalidOutputSchemaError: (e: InvalidOutputSchemaError) =>
    Effect.as(Effect.logError(`run ${id} cannot resume, its output schema is refused now: ${e.message}`), undefined)
})

/**
 * Every run a dead process left unfinished (RUNNING or QUEUED), prepared to resume and handed to `take` (a run that
 * cannot resume is logged and left): what start-up recovery does, in a library (resumeUnfinished) and a server.
 */
export const takeUnfinished = <A, E, R, EL = never, RL = never>(
  take: (prepared: PreparedRun, row: StoredRun) => Effect.Effect<A, E, R>,
  concurrency = 1,
  /**
   * How a run is taken: claimed for this process (store/RunLease), or "leave" — to the live process executing it (a
   * server sharing PostgreSQL), asked before it is taken.
   */
  claimOf: (runId: string) => Effect.Effect<Claimant | "leave" | undefined, EL, RL> = () => Effect.succeed(undefined)
) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const results = yield* Effect.forEach(yield* store.unfinished, (row) =>
      Effect.flatMap(claimOf(row.id), (claim) =>
        claim === "leave" ? Effect.succeed(undefined) : prepareResume(row.id, { claim }).pipe(
          Effect.catchTags(cannotResume(row.id)),
          Effect.flatMap((prepared) => (prepared ? take(prepared, row) : Effect.succeed(undefined)))
        )), { concurrency })
    return results.flatMap((r) => (r === undefined ? [] : [r]))
  })

/** A piece of a model call's output as it is written (a run's live output: `events.output`). */
export type { LlmOutputDelta } from "../journal/RunOutput.js"

/** Every run a dead process left unfinished, resumed to its end (those that cannot resume logged and left). */
export const resumeUnfinished = takeUnfinished((prepared) => prepared.execute, 4)
