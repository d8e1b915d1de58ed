/**
 * A prepared run executed to its end in its mode: RunStarted (or RunResumed), simple mode's iterations and their
 * escalation, full mode's attempt, the end on a cancel, a guardrail's block at the input.
 */
import { Effect, Option, Schema } from "effect"
import { AgentDefinition } from "../agents/Agent.js"
import type { Usage } from "../domain/Budget.js"
import type { Plan } from "../domain/Plan.js"
import type { RunEvent, RunEventBody } from "../domain/RunEvent.js"
import type { SimpleIterationRecord } from "../domain/SimpleIteration.js"
import type { Trigger } from "../guardrails/Checking.js"
import type * as RunJournal from "../journal/RunJournal.js"
import { triggeredEvent } from "../kernel/Guarding.js"
import { type Outcome } from "../kernel/Orchestrator.js"
import { RunLifecycle } from "../kernel/RunContext.js"
import { initialState } from "../kernel/RunState.js"
import { resultOf, type RunResult } from "../record/RunResult.js"
import { endsIterations, iterate, summarizeFailures } from "../simple/SimpleMode.js"
import { traced } from "../telemetry/Span.js"
import type { Lineage } from "./ChildRuns.js"
import { resolvedAgentOf, type RunTaskInput } from "./RunInput.js"
import { type Capabilities, remembers, type Session, sessionOf, trustsToolOutputs } from "./Session.js"

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

export const execute = (
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
