import { Clock, Config, Effect, Option, Schema } from "effect"
import { AdaptiveDepth } from "../adaptive/AdaptiveDepth.js"
import { ConvergenceEngine } from "../convergence/ConvergenceEngine.js"
import type { Usage } from "../domain/Budget.js"
import { type InvalidRunInputError, type QuotaExceededError, RunNotFoundError } from "../domain/Errors.js"
import type { Plan } from "../domain/Plan.js"
import type { RunEventBody } from "../domain/RunEvent.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { SimpleIterationRecord } from "../domain/SimpleIteration.js"
import { ApprovalPolicy } from "../kernel/Approval.js"
import { askBudgetExtension } from "../kernel/BudgetExtension.js"
import * as BudgetGuard from "../kernel/BudgetGuard.js"
import { orchestrate, type Outcome } from "../kernel/Orchestrator.js"
import { type RunContext, RunLifecycle } from "../kernel/RunContext.js"
import * as RunEvents from "../kernel/RunEvents.js"
import * as RunLlm from "../kernel/RunLlm.js"
import * as RunOutput from "../kernel/RunOutput.js"
import { initialState } from "../kernel/RunState.js"
import { LanguageModel } from "../llm/LanguageModel.js"
import { RecursivePlanner } from "../planning/RecursivePlanner.js"
import { budgetNow, reachesEnd, waitedMs } from "../record/RunRecord.js"
import { resultFromEvents, resultOf, type RunResult } from "../record/RunResult.js"
import { iterate, summarizeFailures } from "../simple/SimpleMode.js"
import { Quotas } from "../store/QuotaLedger.js"
import { type RunIdTakenError, RunStore, sinkOf, type StoreError, type UserBusyError } from "../store/RunStore.js"
import { Supervisor } from "../supervisor/Supervisor.js"
import { traced } from "../telemetry/Span.js"
import * as ToolRegistry from "../tools/ToolRegistry.js"
import { SemanticValidator, toolInfos } from "../validation/SemanticValidator.js"
import { forecaster, forecastLeft } from "./Forecasting.js"
import { replayFor } from "./ForkModel.js"
import { progressOf } from "./Recovery.js"
import { decodeRunInput, RunTaskInput } from "./RunInput.js"

export { RunLifecycle }

/** AEON_STREAM_INTERVAL_MS: the least time between two pieces of a model call's live output. */
export const outputIntervalConfig = Config.integer("AEON_STREAM_INTERVAL_MS").pipe(
  Config.withDescription("The least time between two pieces of a model call's live output (runOutput), in ms"),
  Config.validate({ message: "AEON_STREAM_INTERVAL_MS must be 0 or more", validation: (n) => n >= 0 }),
  Config.withDefault(RunOutput.DEFAULT_INTERVAL_MS),
  Effect.orDie
)

/** The services a run needs, resolved once. */
export const capabilities = Effect.all({
  model: LanguageModel,
  tools: ToolRegistry.ToolRegistry,
  validator: SemanticValidator,
  convergence: ConvergenceEngine,
  planner: RecursivePlanner,
  adaptive: AdaptiveDepth,
  supervisor: Supervisor,
  sink: Effect.serviceOption(RunEvents.EventSink).pipe(Effect.map(Option.getOrElse(() => RunEvents.noSink))),
  recordPrompts: Effect.serviceOption(RunLlm.PromptRecording).pipe(
    Effect.map(Option.match({ onNone: () => true, onSome: (p) => p.enabled }))
  ),
  outputIntervalMs: outputIntervalConfig,
  approvalTools: Effect.serviceOption(ApprovalPolicy).pipe(
    Effect.map(Option.match({ onNone: () => [] as ReadonlyArray<string>, onSome: (p) => p.tools }))
  ),
  approvePlan: Effect.serviceOption(ApprovalPolicy).pipe(
    Effect.map(Option.match({ onNone: () => false, onSome: (p) => p.plans === true }))
  ),
  quotas: Effect.serviceOption(Quotas).pipe(Effect.map(Option.getOrUndefined))
})
export type Capabilities = Effect.Effect.Success<typeof capabilities>

export interface PreparedRun {
  readonly runId: string
  readonly input: RunTaskInput
  readonly events: RunEvents.RunEvents
  /** Runs to the end; interrupting it cancels the run (tool calls in progress complete first). */
  readonly execute: Effect.Effect<RunResult>
}

const statusOf = (o: Outcome) =>
  o.stop.reason === "converged"
    ? "CONVERGED" as const
    : o.stop.reason === "failed"
    ? "FAILED" as const
    : o.stop.reason === "cancelled" || o.stop.reason === "dry_run"
    ? "CANCELLED" as const
    : "NOT_CONVERGED" as const

type AttemptOptions = { singlePass?: boolean; escalationContext?: string | undefined }
type Finish = (o: Outcome, extra?: Partial<Extract<RunEventBody, { _tag: "RunFinished" }>>) => Effect.Effect<unknown>

/** What a run's attempts share: its guard and progress, how an attempt starts, how the run ends. */
interface Session {
  readonly input: RunTaskInput
  readonly events: RunEvents.RunEvents
  readonly guard: BudgetGuard.BudgetGuard
  /** Where a resumed run stands (undefined for a new run). */
  readonly progress: ReturnType<typeof progressOf> | undefined
  readonly attempt: (firstPass: number, extra: AttemptOptions) => Effect.Effect<Outcome>
  /** After a restart: the attempt that was in progress, continuing from its persisted state. */
  readonly inProgress: Effect.Effect<Outcome> | undefined
  /** The first pass number no attempt has used. */
  readonly firstFree: number
  readonly finish: Finish
}

/** The context an attempt runs in: the run's input, services, tools (as they were when it started), guard. */
const contextOf = (
  caps: Capabilities,
  input: RunTaskInput,
  runId: string,
  events: RunEvents.RunEvents,
  guard: BudgetGuard.BudgetGuard,
  startedAt: number
) => {
  // the tools as they are when the run starts (an MCP server's list may change while it runs)
  const tools = caps.tools.snapshot()
  const registry = input.tools
    ? { ...ToolRegistry.make(tools.tools.filter((t) => input.tools!.includes(t.name))), recorded: tools.recorded }
    : tools
  const llm = RunLlm.make(caps.model, guard, events, caps.supervisor, caps.recordPrompts)
  return (firstPass: number, extra: AttemptOptions): RunContext => ({
    runId,
    firstPass,
    request: input.task,
    budget: input.budget,
    criteria: input.criteria,
    parallelism: input.parallelism,
    approvalTools: [...caps.approvalTools, ...input.approvalTools ?? []],
    approvalTimeoutMs: input.approvalTimeoutMs,
    interactive: input.interactive,
    dryRun: input.dryRun,
    approvePlan: input.approvePlan || caps.approvePlan,
    forecast: forecaster(caps.model, input, events, startedAt),
    ...extra,
    events,
    guard,
    llm,
    tools: registry,
    toolInfos: toolInfos(registry.tools),
    validator: caps.validator,
    convergence: caps.convergence,
    planner: caps.planner,
    adaptive: caps.adaptive,
    supervisor: caps.supervisor
  })
}

/** The run's last event, from an attempt's outcome (and what the caller adds). */
const finishWith =
  (caps: Capabilities, events: RunEvents.RunEvents, guard: BudgetGuard.BudgetGuard): Finish => (o, extra = {}) =>
    Effect.flatMap(guard.usage, (usage) =>
      events.emit({
        _tag: "RunFinished",
        status: statusOf(o),
        terminationReason: o.stop.reason,
        usage,
        plan: o.state.plan,
        advisories: caps.model.notice ? [caps.model.notice, ...o.state.advisories] : o.state.advisories,
        followUpQuestions: o.state.followUpQuestions,
        manualInterventions: o.state.manualInterventions,
        ...(o.finalAnswer ? { finalAnswer: o.finalAnswer } : {}),
        ...(o.ttlExpiration ? { ttlExpiration: o.ttlExpiration } : {}),
        ...(o.stop.error ? { error: o.stop.error } : {}),
        ...extra
      }))

const sessionOf = (
  caps: Capabilities,
  input: RunTaskInput,
  runId: string,
  events: RunEvents.RunEvents,
  past?: ReadonlyArray<RunEvent>
) =>
  Effect.gen(function*() {
    const progress = past ? progressOf(events.record(), input.mode) : undefined
    const startedAt = progress?.startedAt ?? (yield* Clock.currentTimeMillis)
    const usage = () => events.record().usage
    const budget = () => budgetNow(events.record(), input.budget)
    const guard = BudgetGuard.make(input.budget, startedAt, usage, {
      pausedMs: input.pauseDeadlineWhileWaiting ? (now) => waitedMs(events.record(), now) : undefined,
      raised: budget,
      quota: caps.quotas?.gate(input.userId),
      // an interactive run asks for more budget where the guard would stop it
      moreBudget: input.interactive
        ? (refusal) =>
          askBudgetExtension(
            { events, approvalTimeoutMs: input.approvalTimeoutMs },
            budget,
            usage,
            forecastLeft(forecaster(caps.model, input, events, startedAt), events, input.budget),
            refusal
          )
        : undefined
    })
    const context = contextOf(caps, input, runId, events, guard, startedAt)
    const current = progress?.attempt
    const session: Session = {
      input,
      events,
      guard,
      progress,
      attempt: (firstPass, extra) => orchestrate(context(firstPass, extra), firstPass, startedAt),
      inProgress: current && Effect.suspend(() =>
        orchestrate(
          context(current.firstPass, { singlePass: current.singlePass, escalationContext: progress.escalationContext }),
          current.firstPass,
          startedAt,
          current.resume
        )
      ),
      firstFree: progress?.nextPass ?? 0,
      finish: finishWith(caps, events, guard)
    }
    return session
  })

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
          ...(outcome.finalAnswer ? { finalAnswer: outcome.finalAnswer } : {}),
          ...(outcome.ttlExpiration ? { ttlExpiration: outcome.ttlExpiration } : {})
        }).pipe(Effect.asVoid),
      {
        records: progress?.simpleRecords ?? [],
        inProgress: progress?.attempt?.singlePass ? s.inProgress : undefined,
        previousPlan: progress?.previousPlan,
        done: progress?.lastIteration !== undefined &&
          ["converged", "budget_exhausted", "cancelled", "dry_run"].includes(progress.lastIteration.stop.reason)
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
    const failureSummary = summarizeFailures(records)
    const remaining = yield* s.guard.remaining
    const spent = Object.entries(remaining).filter(([, v]) => v <= 0).map(([k]) => k)
    if (s.input.mode === "SIMPLE" || !s.input.escalate || last.stop.reason === "cancelled") {
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
  events: RunEvents.RunEvents,
  past?: ReadonlyArray<RunEvent>
): Effect.Effect<RunResult> =>
  Effect.gen(function*() {
    const s = yield* sessionOf(caps, input, runId, events, past)
    yield* events.emit(
      past
        ? { _tag: "RunResumed", reopenedStepIds: s.progress?.attempt?.inFlight ?? [] }
        : { _tag: "RunStarted", task: input.task, mode: input.mode, budget: input.budget, model: caps.model.label }
    )
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

/**
 * A client-chosen run id within a user's own namespace: two users choosing the same id get two runs, and no
 * answer tells one of them that the other's run exists. (A chosen id cannot hold ":", so it never collides.)
 */
export const scopedRunId = (userId: string, runId: string) => `${userId}:${runId}`

export interface RegisterOptions {
  readonly status?: "QUEUED" | "RUNNING"
  readonly queueBehindUser?: boolean
  /** The user a client-chosen runId belongs to: the run's id is `scope:runId` (ids are per user). */
  readonly idScope?: string | undefined
}

/** Decodes the input (bad input: a clear error, nothing stored) and stores the run, when there is a store. */
export const register = (rawInput: unknown, options: RegisterOptions = {}) =>
  Effect.gen(function*() {
    const tools = yield* ToolRegistry.ToolRegistry
    const input = yield* decodeRunInput(rawInput, tools.names)
    const runId = input.runId === undefined
      ? crypto.randomUUID()
      : options.idScope !== undefined
      ? scopedRunId(options.idScope, input.runId)
      : input.runId
    // the user's quota counts the run (refused, coded, when it has no room: nothing is stored)
    const quotas = yield* Effect.serviceOption(Quotas)
    if (Option.isSome(quotas)) yield* quotas.value.admitRun(input.userId)
    const store = yield* Effect.serviceOption(RunStore)
    if (Option.isSome(store)) {
      yield* store.value.createRun({
        id: runId,
        userId: input.userId,
        task: input.task,
        mode: input.mode,
        input: Schema.encodeSync(RunTaskInput)(input),
        status: options.status ?? "RUNNING",
        allowBusyUser: options.queueBehindUser ?? false
      })
    }
    return { runId, input }
  })

/** Decodes the input (bad input: a clear error, nothing started) and sets up the run's event stream. */
export const prepare = (
  rawInput: unknown,
  options: RegisterOptions = {}
): Effect.Effect<
  PreparedRun,
  InvalidRunInputError | StoreError | UserBusyError | RunIdTakenError | QuotaExceededError,
  Effect.Effect.Context<typeof capabilities>
> =>
  Effect.gen(function*() {
    const caps = yield* capabilities
    const { input, runId } = yield* register(rawInput, options)
    const events = yield* RunEvents.make(runId, caps.sink, [], { outputIntervalMs: caps.outputIntervalMs })
    return { runId, input, events, execute: execute(caps, input, runId, events) }
  })

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
  } = {}
) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const known = yield* capabilities
    const stored = yield* store.getRun(runId)
    if (Option.isNone(stored)) return yield* new RunNotFoundError({ runId })
    const sink = options.claim !== undefined ? sinkOf(store, yield* store.claim(runId, options.claim)) : known.sink
    const past = options.known?.past ?? (yield* store.events(runId))
    // a fork's calls are answered from its source's recordings until one differs
    const replay = yield* replayFor(past, known, { pure: options.pureReplay, source: options.known?.source })
    const caps = replay.model === known.model ? known : { ...known, ...replay }
    const input = yield* decodeRunInput(stored.value.input, caps.tools.names)
    const events = yield* RunEvents.make(runId, sink, past, { outputIntervalMs: caps.outputIntervalMs })
    const finished = reachesEnd(past)
    const run: PreparedRun = {
      runId,
      input,
      events,
      execute: finished
        ? Effect.succeed(resultFromEvents(past))
        : execute(caps, input, runId, events, past.length > 0 ? past : undefined)
    }
    return run
  })

/** Start-up recovery: every run left RUNNING or QUEUED continues to its end. */
export const resumeUnfinished = Effect.gen(function*() {
  const store = yield* RunStore
  const unfinished = yield* store.unfinished
  // a run whose stored events do not decode is logged and left as it is; the others resume
  const results = yield* Effect.forEach(unfinished, (r) =>
    prepareResume(r.id).pipe(
      Effect.flatMap((p) => p.execute),
      Effect.map(Option.some),
      Effect.catchTag("RunRecordDamagedError", (e) =>
        Effect.as(
          Effect.logError(`run ${r.id} cannot resume, its record is damaged: event ${e.seq}: ${e.detail}`),
          Option.none()
        ))
    ), { concurrency: 4 })
  return results.flatMap((r) => (Option.isSome(r) ? [r.value] : []))
})
