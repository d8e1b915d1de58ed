import { type Context, Effect, Option, Schema } from "effect"
import { AgentDefinition } from "../agents/Agent.js"
import { runToolNames } from "../agents/AgentRequest.js"
import type { Usage } from "../domain/Budget.js"
import { type InvalidOutputSchemaError, type InvalidRunInputError, RunNotFoundError } from "../domain/Errors.js"
import type { Plan } from "../domain/Plan.js"
import type { RunEventBody } from "../domain/RunEvent.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { SimpleIterationRecord } from "../domain/SimpleIteration.js"
import type { Trigger } from "../guardrails/Checking.js"
import * as RunJournal from "../journal/RunJournal.js"
import { triggeredEvent } from "../kernel/Guarding.js"
import { type Outcome } from "../kernel/Orchestrator.js"
import { RunLifecycle } from "../kernel/RunContext.js"
import { initialState } from "../kernel/RunState.js"
import { reachesEnd } from "../record/RunRecord.js"
import { resultFromEvents, resultOf, type RunResult } from "../record/RunResult.js"
import { endsIterations, iterate, summarizeFailures } from "../simple/SimpleMode.js"
import { RunStore, sinkOf, type StoredRun } from "../store/RunStore.js"
import { traced } from "../telemetry/Span.js"
import { agentCaps } from "./AgentRuns.js"
import { attachedOf } from "./Attachments.js"
import type { ChildRunner, Lineage } from "./ChildRuns.js"
import { replayFor } from "./ForkModel.js"
import { storedTriggers, withoutTriggers } from "./InputGuard.js"
import { asLogged } from "./MemoryReplay.js"
import { register, type RegisterOptions, scopedRunId, type StartError } from "./Registration.js"
import { decodeRunInput, resolvedAgentOf, RunTaskInput } from "./RunInput.js"

import {
  type Capabilities,
  capabilities,
  outputIntervalConfig,
  remembers,
  type Session,
  sessionOf,
  trustsToolOutputs
} from "./Session.js"

export { RunLifecycle }
export { register, type RegisterOptions, scopedRunId, type StartError }
export { type Capabilities, capabilities, outputIntervalConfig }

export interface PreparedRun {
  readonly runId: string
  readonly input: RunTaskInput
  readonly events: RunJournal.RunJournal
  /** Runs to the end; interrupting it cancels the run (tool calls in progress complete first). */
  readonly execute: Effect.Effect<RunResult>
}

/** A full-mode attempt: the one in progress after a restart, or a new one. */
const fullAttempt = (s: Session, escalationContext?: string) =>
  s.inProgress && !s.progress?.attempt?.singlePass
    ? s.inProgress
    : s.attempt(s.firstFree, escalationContext ? { escalationContext } : {})

/** Simple mode's iterations (continued after a restart), then the run's end: passed, failed, or escalated. */
const simpleMode = (s: Session) =>
  Effect.gen(function*() {
    const { input, progress } = s
    const { iterations, nextPass, records } = yield* iterate(
      input.simpleIterations,
      s.firstFree,
      (firstPass) => s.attempt(firstPass, { singlePass: true }),
      s.guard.usage.pipe(Effect.map((u) => u.costUsd)),
      (record, outcome) =>
        s.events.emit({
          _tag: "SimpleIterationFinished",
          record,
          terminationReason: outcome.stop.reason,
          ...(outcome.stop.error ? { error: outcome.stop.error } : {}),
          // an iteration's answer is a record: kept as the output guardrails let it be (the run's end is gated)
          ...(outcome.finalAnswer ? { finalAnswer: s.guardrails.recorded("output", outcome.finalAnswer) } : {}),
          ...(outcome.ttlExpiration ? { ttlExpiration: outcome.ttlExpiration } : {})
        }).pipe(Effect.asVoid),
      {
        records: progress?.simpleRecords ?? [],
        inProgress: progress?.attempt?.singlePass ? s.inProgress : undefined,
        previousPlan: progress?.previousPlan,
        done: progress?.lastIteration !== undefined && progress.simpleRecords.length > 0 &&
          endsIterations(progress.simpleRecords.at(-1)!, progress.lastIteration.stop, progress.simpleRecords.at(-2))
      }
    )
    // after a restart that found the last iteration finished, that iteration is the last one
    const last = iterations.at(-1)?.outcome ?? progress?.lastIteration ?? {
      stop: { reason: "failed" as const, error: "no iteration left to run" },
      state: initialState(input.task, nextPass),
      nextPass
    }
    if (records.at(-1)?.testStatus === "passed") return yield* s.finish(last)
    // an attempt stopped before it had a plan reports the latest plan that was tried
    const tried = [...iterations].reverse().find((i) => i.outcome.state.plan.steps.length > 0)?.outcome.state.plan ??
      last.state.plan
    yield* afterFailedIterations(s, last, records, nextPass, tried)
  })

/** Simple mode did not pass: the run ends so, or escalates to full mode with what is left of its budget. */
const afterFailedIterations = (
  s: Session,
  last: Outcome,
  records: ReadonlyArray<SimpleIterationRecord>,
  nextPass: number,
  tried: Plan
) =>
  Effect.gen(function*() {
    const failureSummary = summarizeFailures(records, last.stop)
    const remaining = yield* s.guard.remaining
    const spent = Object.entries(remaining).filter(([, v]) => v <= 0).map(([k]) => k)
    // more depth cannot help a model that abstains every time, a tool that refuses every time, a provider that
    // cannot serve the run: the failure summary says which
    if (
      s.input.mode === "SIMPLE" || !s.input.escalate || last.stop.reason === "cancelled" ||
      failureSummary.cause !== undefined
    ) {
      return yield* s.finish(last, { failureSummary, plan: tried })
    }
    if (spent.length > 0 || last.stop.reason === "budget_exhausted") {
      return yield* s.finish(last, {
        status: "NOT_CONVERGED",
        terminationReason: "budget_exhausted",
        failureSummary,
        plan: tried,
        error: `no budget left to escalate (${spent.join(", ") || last.stop.exhausted})`
      })
    }
    yield* s.events.emit({
      _tag: "Escalated",
      escalation: {
        reason: `simple mode did not pass in ${records.length} iteration(s)`,
        iterationsRun: records.length,
        remainingBudget: remaining,
        failureSummary
      }
    })
    yield* s.finish(yield* s.attempt(nextPass, { escalationContext: failureSummary.summary }))
  })

/** Cancelled: no synthesis; the run ends with what it had (a tool call in progress has completed). */
const endOnInterrupt = (s: Session) =>
  Effect.gen(function*() {
    if (s.events.record().finished) return
    // a server shutting down leaves the run RUNNING: it resumes on the next start
    const lifecycle = yield* Effect.serviceOption(RunLifecycle)
    if (Option.isSome(lifecycle) && (yield* lifecycle.value.shuttingDown)) return
    yield* s.events.emit(cancelledEnd(yield* s.guard.usage))
  })

const execute = (
  caps: Capabilities,
  input: RunTaskInput,
  runId: string,
  events: RunJournal.RunJournal,
  options: {
    readonly past?: ReadonlyArray<RunEvent> | undefined
    /** A resume whose calls go to the live model (not answered from recordings: a fork, a replay). */
    readonly live?: boolean | undefined
    /** What the input guardrails did when the run was registered (said in its log after RunStarted). */
    readonly inputTriggers?: ReadonlyArray<Trigger> | undefined
  } = {}
): Effect.Effect<RunResult> =>
  Effect.gen(function*() {
    const { live = false, past } = options
    const s = yield* sessionOf(
      caps,
      input,
      runId,
      events,
      past,
      (options.inputTriggers ?? []).flatMap((t) => t.placeholders)
    )
    const before = past && live ? events.record().models.at(-1) : undefined
    const changed = before !== undefined && before !== caps.model.label
    yield* events.emit(
      past
        ? {
          _tag: "RunResumed",
          reopenedStepIds: s.progress?.attempt?.inFlight ?? [],
          ...(changed ? { model: caps.model.label } : {})
        }
        : {
          _tag: "RunStarted",
          task: input.task,
          mode: input.mode,
          budget: input.budget,
          model: caps.model.label,
          ...(remembers(caps, input) ? {} : { memory: false }),
          ...(input.tags && input.tags.length > 0 ? { tags: input.tags } : {}),
          ...(input.threadId !== undefined ? { threadId: input.threadId } : {}),
          ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
          ...(trustsToolOutputs(caps, input)
            ? { toolOutputs: "TRUSTED" as const }
            : caps.untrusted.policy
            ? { untrustedPolicy: caps.untrusted.policy }
            : {}),
          ...startedAgent(input, caps.lineage)
        }
    )
    if (!past) {
      const inputTriggers = options.inputTriggers ?? []
      yield* Effect.forEach(inputTriggers, (t) => events.emit(triggeredEvent(t)), { discard: true })
      const blocked = inputTriggers.find((t) => t.action === "block")
      // blocked at the input: the run ends before any model call
      if (blocked) return yield* blockedEnd(s, blocked)
    }
    if (changed) {
      yield* events.emit({
        _tag: "AdvisoryRaised",
        passNumber: 0,
        advisory: `resumed on model ${caps.model.label}: its calls before went to ${before}`
      })
    }
    const escalated = s.progress?.escalationContext
    const run = input.mode === "FULL"
      ? Effect.flatMap(fullAttempt(s), (o) => s.finish(o))
      : escalated !== undefined
      ? Effect.flatMap(fullAttempt(s, escalated), (o) => s.finish(o))
      : simpleMode(s)
    yield* Effect.onInterrupt(run, () => endOnInterrupt(s))
    return resultOf(events.record())
  }).pipe(
    // however the run ends (a shutdown interrupts it without RunFinished), what it emitted reaches the store; then
    // the run's scope (its writer) closes
    Effect.ensuring(events.close),
    traced("Aeon.run", { captureStackTrace: false, attributes: { "aeon.run_id": runId } })
  )

/** A guardrail blocked what the run would take or give: it ends FAILED, coded GUARDRAIL, saying which and where. */
const blockedEnd = (s: Session, blocked: Trigger) =>
  Effect.gen(function*() {
    yield* s.events.emit({
      _tag: "RunFinished",
      status: "FAILED",
      terminationReason: "failed",
      usage: yield* s.guard.usage,
      error: blocked.reason ?? `guardrail ${blocked.guardrail} blocked the ${blocked.point}`,
      errorCode: "GUARDRAIL",
      advisories: [],
      followUpQuestions: [],
      manualInterventions: []
    })
    return resultOf(s.events.record())
  })

/** How a cancelled run's log ends: no synthesis, the run ends with what it had. */
export const cancelledEnd = (usage: Usage): RunEventBody => ({
  _tag: "RunFinished",
  status: "CANCELLED",
  terminationReason: "cancelled",
  usage,
  advisories: [],
  followUpQuestions: [],
  manualInterventions: []
})

/** Decodes the input (bad input: a clear error, nothing started) and sets up the run's event stream. */
export const prepare = (
  rawInput: unknown,
  options: RegisterOptions & { readonly lineage?: Lineage | undefined } = {}
): Effect.Effect<PreparedRun, StartError, Effect.Effect.Context<typeof capabilities>> =>
  Effect.gen(function*() {
    const known = yield* capabilities
    const { input, inputTriggers, runId } = yield* register(rawInput, options)
    const agent = yield* agentCaps(known, input, {
      runId,
      lineage: options.lineage ?? { depth: 0 },
      children: childRunner(yield* Effect.context<Effect.Effect.Context<typeof capabilities>>())
    })
    const caps = { ...known, ...agent, attached: yield* attachedOf(input) }
    const events = yield* RunJournal.make(runId, caps.sink, [], {
      outputIntervalMs: caps.outputIntervalMs,
      storeWaits: caps.storeWaits
    })
    return { runId, input, events, execute: execute(caps, input, runId, events, { inputTriggers }) }
  })

/** What RunStarted says of the agent the run is a run of, and of the run that called it. */
const startedAgent = (input: RunTaskInput, lineage: Lineage) => {
  const agent = resolvedAgentOf(input)
  return {
    ...(agent
      ? {
        agent: {
          name: agent.name,
          ...(agent.version !== undefined ? { version: agent.version } : {}),
          definition: Schema.encodeSync(AgentDefinition)(agent.definition)
        }
      }
      : {}),
    ...(lineage.parentRunId !== undefined ? { parentRunId: lineage.parentRunId } : {})
  }
}

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
 * A run a dead process left unfinished, set up to continue from its persisted events (same sequence). `claim`: a
 * runner of a cluster (its address) takes it up first (its owner epoch raised before its events are read), and its appends are
 * fenced with that epoch: once another runner takes it up, they are refused and it stops.
 */
export const prepareResume = (
  runId: string,
  options: {
    readonly claim?: string | undefined
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
    const sink = options.claim !== undefined ? sinkOf(store, yield* store.claim(runId, options.claim)) : known.sink
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
        : execute(caps, input, runId, events, {
          past: past.length > 0 ? past : undefined,
          live: replaying === known,
          inputTriggers: storedTriggers(stored.value.input)
        })
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
  /** Whether to leave a run to the live process executing it (a server sharing PostgreSQL): asked before it is taken. */
  leave: (runId: string) => Effect.Effect<boolean, EL, RL> = () => Effect.succeed(false)
) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const results = yield* Effect.forEach(yield* store.unfinished, (row) =>
      Effect.flatMap(leave(row.id), (left) =>
        left ? Effect.succeed(undefined) : prepareResume(row.id).pipe(
          Effect.catchTags(cannotResume(row.id)),
          Effect.flatMap((prepared) => (prepared ? take(prepared, row) : Effect.succeed(undefined)))
        )), { concurrency })
    return results.flatMap((r) => (r === undefined ? [] : [r]))
  })

/** A piece of a model call's output as it is written (a run's live output: `events.output`). */
export type { LlmOutputDelta } from "../journal/RunOutput.js"

/** Every run a dead process left unfinished, resumed to its end (those that cannot resume logged and left). */
export const resumeUnfinished = takeUnfinished((prepared) => prepared.execute, 4)
