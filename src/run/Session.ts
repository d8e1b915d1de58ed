/** A run's session: the services it needs, the context its attempts run in, its budget guard, its last event. */
import { Clock, Config, Effect, Option } from "effect"
import { Agents } from "../agents/Agents.js"
import { prepareOutputSchema } from "../convergence/OutputSchema.js"
import type { Attached } from "../domain/Attachment.js"
import type { FinalAnswer } from "../domain/Result.js"
import type { RunEventBody } from "../domain/RunEvent.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { makePlaceholders, type Trigger } from "../guardrails/Checking.js"
import { Guardrails } from "../guardrails/Guardrails.js"
import * as RunJournal from "../journal/RunJournal.js"
import * as RunOutput from "../journal/RunOutput.js"
import { ApprovalPolicy } from "../kernel/Approval.js"
import { askBudgetExtension } from "../kernel/BudgetExtension.js"
import * as BudgetGuard from "../kernel/BudgetGuard.js"
import { threadContextTokensConfig } from "../kernel/ConversationContext.js"
import * as Guarding from "../kernel/Guarding.js"
import { orchestrate, type Outcome } from "../kernel/Orchestrator.js"
import { type RunContext } from "../kernel/RunContext.js"
import * as RunLlm from "../kernel/RunLlm.js"
import { LanguageModel } from "../llm/LanguageModel.js"
import { MemoryFailedError, type RunMemory } from "../memory/RunMemory.js"
import { modelTag } from "../record/RunMemories.js"
import { budgetNow, waitedMs } from "../record/RunRecord.js"
import * as Memories from "../store/Memories.js"
import { Quotas } from "../store/QuotaLedger.js"
import { StoreOutages } from "../store/StoreOutages.js"
import type { StoreError } from "../store/StoreValues.js"
import { Threads } from "../store/Threads.js"
import * as ToolRegistry from "../tools/ToolRegistry.js"
import { toolInfos } from "../validation/SemanticValidator.js"
import type { Lineage } from "./ChildRuns.js"
import { conversationSource } from "./Conversations.js"
import { forecaster, forecastLeft } from "./Forecasting.js"
import { runGuardrails } from "./InputGuard.js"
import { progressOf } from "./Recovery.js"
import { RunTaskInput } from "./RunInput.js"

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
  sink: Effect.serviceOption(RunJournal.EventSink).pipe(Effect.map(Option.getOrElse(() => RunJournal.noSink))),
  recordPrompts: Effect.serviceOption(RunLlm.PromptRecording).pipe(
    Effect.map(Option.match({ onNone: () => true, onSome: (p) => p.enabled }))
  ),
  outputIntervalMs: outputIntervalConfig,
  storeWaits: Effect.serviceOption(StoreOutages).pipe(Effect.map(Option.getOrUndefined)),
  approvalTools: Effect.serviceOption(ApprovalPolicy).pipe(
    Effect.map(Option.match({ onNone: (): ReadonlyArray<string> => [], onSome: (p) => p.tools }))
  ),
  approvePlan: Effect.serviceOption(ApprovalPolicy).pipe(
    Effect.map(Option.match({ onNone: () => false, onSome: (p) => p.plans === true }))
  ),
  untrusted: Effect.serviceOption(ApprovalPolicy).pipe(
    Effect.map(Option.match({
      onNone: () => ({ calls: "approve" as const, outputs: "untrusted" as const, policy: undefined }),
      onSome: (p) => ({
        calls: p.untrustedCalls ?? "approve",
        outputs: p.toolOutputs ?? "untrusted",
        policy: p.untrustedPolicy
      })
    }))
  ),
  quotas: Effect.serviceOption(Quotas).pipe(Effect.map(Option.getOrUndefined)),
  guardrails: Effect.serviceOption(Guardrails).pipe(Effect.map(Option.getOrUndefined)),
  threads: Effect.serviceOption(Threads).pipe(Effect.map(Option.getOrUndefined)),
  threadContextTokens: threadContextTokensConfig,
  /** The task's files and images, their bytes read back (run/Attachments; set by run/Run for its run). */
  attached: Effect.succeed<ReadonlyArray<Attached>>([]),
  /** The agents a run may name (agents/Agents), when the layer has them. */
  agents: Effect.serviceOption(Agents).pipe(Effect.map(Option.getOrUndefined)),
  /** Where the run stands among runs calling agents (set by run/Run for a child run). */
  lineage: Effect.succeed<Lineage>({ depth: 0 }),
  /** The tools the run adds to the registry's: remote A2A agents, the agents its agent calls (run/AgentRuns). */
  runTools: Effect.succeed((_guard: BudgetGuard.BudgetGuard): ReadonlyArray<ToolRegistry.Tool> => []),
  /** A replay's or a fork's conversation, as its source's log quoted it (run/Run prepareResume). */
  loggedConversation: Effect.succeed<Extract<RunEvent, { _tag: "ConversationQuoted" }> | undefined>(undefined),
  // memory across runs: none without the store's Memories, or with AEON_MEMORY=off
  memories: Effect.zipWith(
    Effect.serviceOption(Memories.Memories),
    Memories.memoryEnabledConfig,
    (m, on) => (on ? Option.getOrUndefined(m) : undefined)
  )
})
export type Capabilities = Effect.Effect.Success<typeof capabilities>

export const statusOf = (o: Outcome) =>
  o.stop.reason === "converged"
    ? "CONVERGED" as const
    : o.stop.reason === "failed"
    ? "FAILED" as const
    : o.stop.reason === "cancelled" || o.stop.reason === "dry_run"
    ? "CANCELLED" as const
    : "NOT_CONVERGED" as const

export type AttemptOptions = { singlePass?: boolean; escalationContext?: string | undefined }
export type Finish = (
  o: Outcome,
  extra?: Partial<Extract<RunEventBody, { _tag: "RunFinished" }>>
) => Effect.Effect<unknown>

/** What a run's attempts share: its guard and progress, how an attempt starts, how the run ends. */
export interface Session {
  readonly input: RunTaskInput
  readonly events: RunJournal.RunJournal
  readonly guard: BudgetGuard.BudgetGuard
  /** Where a resumed run stands (undefined for a new run). */
  readonly progress: ReturnType<typeof progressOf> | undefined
  readonly attempt: (firstPass: number, extra: AttemptOptions) => Effect.Effect<Outcome>
  /** After a restart: the attempt that was in progress, continuing from its persisted state. */
  readonly inProgress: Effect.Effect<Outcome> | undefined
  /** The first pass number no attempt has used. */
  readonly firstFree: number
  readonly finish: Finish
  /** The run's guardrails (none: Guarding.none). */
  readonly guardrails: Guarding.RunGuardrails
}

/** The context an attempt runs in: the run's input, services, tools (as they were when it started), guard. */
export const contextOf = (
  caps: Capabilities,
  input: RunTaskInput,
  runId: string,
  events: RunJournal.RunJournal,
  guard: BudgetGuard.BudgetGuard,
  startedAt: number,
  /** The placeholders the run's log (and its input's check) already holds. */
  seen: ReadonlyArray<string>
) => {
  // the tools as they are when the run starts (an MCP server's list may change while it runs), with the run's own
  const tools = withRunTools(caps.tools.snapshot(), caps.runTools(guard))
  // whether the run has memory across runs is settled at its start (RunStarted): a resumed, forked or replayed run
  // keeps what its start said
  const memoryOn = remembers(caps, input) && events.record().started?.memory !== false
  // a run without memory across runs is not offered its tools (each tool listed costs every plan call its tokens)
  const offered = (t: ToolRegistry.Tool) =>
    (input.tools === undefined || input.tools.includes(t.name)) &&
    (memoryOn || !ToolRegistry.memoryAcrossRuns.includes(t.name))
  const registry = tools.tools.every(offered)
    ? tools
    : { ...ToolRegistry.make(tools.tools.filter(offered)), recorded: tools.recorded }
  const set = runGuardrails(caps.guardrails?.set, input)
  let guardrails = Guarding.none
  const llm = RunLlm.make(caps.model, guard, events, caps.recordPrompts, {
    thinkingTokens: input.thinkingTokens,
    instructions: input.instructions,
    answerGuard: (set.output ?? []).length > 0
      ? { kept: (value) => guardrails.recorded("output", value) }
      : undefined
  })
  if (Object.keys(set).length > 0) {
    const placeholders = caps.guardrails?.placeholdersOf(runId, seen) ?? makePlaceholders(seen)
    guardrails = Guarding.make(set, placeholders, events, { llm, counted: caps.guardrails?.counted })
  }
  const sideEffects = Effect.unsafeMakeSemaphore(1)
  // checked when the run was registered (run/RunInput): prepared here once for the run's attempts
  const checked = input.outputSchema === undefined
    ? undefined
    : prepareOutputSchema(input.outputSchema, input.outputStrict)
  const outputSchema = checked?.ok ? checked.prepared : undefined
  const context = (firstPass: number, extra: AttemptOptions): RunContext => ({
    runId,
    firstPass,
    request: input.task,
    budget: input.budget,
    criteria: input.criteria,
    outputSchema,
    parallelism: input.parallelism,
    approvalTools: [...caps.approvalTools, ...input.approvalTools ?? []],
    untrustedCalls: caps.untrusted.calls,
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
    sideEffects,
    conversation: conversationSource(caps.threads, input, runId, caps.threadContextTokens, caps.loggedConversation),
    attachments: caps.attached,
    memory: memoryOn && caps.memories
      ? runMemory(caps.memories, input, runId, registry.names, caps.model.label)
      : undefined,
    guardrails
  })
  return { context, guardrails }
}

/** The registry with the run's own tools beside its tools (a fork's recordings kept). */
const withRunTools = (tools: ToolRegistry.Service, own: ReadonlyArray<ToolRegistry.Tool>): ToolRegistry.Service =>
  own.length === 0
    ? tools
    : {
      ...ToolRegistry.make([...tools.tools.filter((t) => !own.some((o) => o.name === t.name)), ...own]),
      recorded: tools.recorded
    }

/** Whether the run takes its tools' outputs as trusted: its input says so, else the server (AEON_TOOL_OUTPUTS). */
export const trustsToolOutputs = (caps: Capabilities, input: RunTaskInput) =>
  (input.toolOutputs ?? (caps.untrusted.outputs === "trusted" ? "TRUSTED" : "UNTRUSTED")) === "TRUSTED"

/** Whether a run recalls and is remembered: its input's `memory`, with the store's Memories and AEON_MEMORY on. */
export const remembers = (caps: Capabilities, input: RunTaskInput) => caps.memories !== undefined && input.memory

/** The user's memory as the run sees it (run/Session binds it to the run's user; "" for runs without one). */
const runMemory = (
  memories: Memories.Service,
  input: RunTaskInput,
  runId: string,
  tools: ReadonlyArray<string>,
  model: string
): RunMemory => {
  const owner = input.userId ?? ""
  const failed = Effect.mapError((e: StoreError) => new MemoryFailedError({ reason: e.message }))
  return {
    recall: (query, limit) => failed(memories.recall(owner, query, { model, ...(limit ? { limit } : {}) })),
    reusablePlan: input.reusePlans ? failed(memories.reusablePlan(owner, input.task, tools)) : undefined,
    remember: (note) =>
      failed(
        memories.remember(owner, { ...note, task: input.task, runId, tags: [...note.tags ?? [], modelTag(model)] })
      )
  }
}

/** The run's last event, from an attempt's outcome (and what the caller adds), its answer through the output gate. */
export const finishWith = (
  caps: Capabilities,
  events: RunJournal.RunJournal,
  guard: BudgetGuard.BudgetGuard,
  typed: boolean,
  guardrails: Guarding.RunGuardrails
): Finish =>
(o, extra = {}) =>
  Effect.gen(function*() {
    const status = statusOf(o)
    const answer = typed && status !== "CONVERGED" && o.finalAnswer ? noValue(o, status) : o.finalAnswer
    const gated = answer ? yield* gateAnswer(guardrails, answer) : {}
    // read after the gate: a model-based guardrail's calls are the run's
    const usage = yield* guard.usage
    return yield* events.emit({
      _tag: "RunFinished",
      status,
      terminationReason: o.stop.reason,
      usage,
      plan: o.state.plan,
      advisories: caps.model.notice ? [caps.model.notice, ...o.state.advisories] : o.state.advisories,
      followUpQuestions: o.state.followUpQuestions,
      manualInterventions: o.state.manualInterventions,
      ...(gated.answer ? { finalAnswer: gated.answer } : {}),
      ...(o.ttlExpiration ? { ttlExpiration: o.ttlExpiration } : {}),
      ...(o.stop.error ? { error: o.stop.error } : {}),
      ...(o.stop.errorCode ? { errorCode: o.stop.errorCode } : {}),
      ...extra,
      // an answer the output guardrails block is withheld: the run fails, saying which guardrail, never the text
      ...(gated.blocked
        ? {
          status: "FAILED" as const,
          terminationReason: "failed" as const,
          error: gated.blocked.reason ?? `guardrail ${gated.blocked.guardrail} blocked the output`,
          errorCode: "GUARDRAIL"
        }
        : {})
    })
  })

/** The answer through the run's output guardrails: its text and its value, redacted, or blocked. */
export const gateAnswer = (
  guardrails: Guarding.RunGuardrails,
  answer: FinalAnswer
): Effect.Effect<{ readonly answer?: FinalAnswer; readonly blocked?: Trigger }> =>
  Effect.gen(function*() {
    if (!guardrails.at("output")) return { answer }
    const text = yield* guardrails.text("output", answer.answerText)
    if (text.blocked) return { blocked: text.blocked }
    const data = answer.data === undefined ? undefined : yield* guardrails.value("output", answer.data)
    if (data?.blocked) return { blocked: data.blocked }
    return { answer: { ...answer, answerText: text.value, ...(data ? { data: data.value } : {}) } }
  })

/**
 * No value without convergence (docs/typed-results.md): a typed run that did not converge ends with no `data` and an
 * answer saying why — never a value a script would read as the run's (an empty or half-filled object).
 */
const noValue = (o: Outcome, status: string): FinalAnswer => {
  const { data: _data, ...answer } = o.finalAnswer!
  const why = o.stop.error ??
    (o.stop.reason === "ttl_expired" ? "its passes ran out" : o.stop.reason.replace(/_/g, " "))
  return {
    ...answer,
    answerText: `No value: the run ended ${status.toLowerCase().replace("_", " ")} (${why}).`,
    converged: false,
    notes: `No value of the output schema: the run did not converge (${why}).`
  }
}

export const sessionOf = (
  caps: Capabilities,
  input: RunTaskInput,
  runId: string,
  events: RunJournal.RunJournal,
  past?: ReadonlyArray<RunEvent>,
  /** The placeholders the run's input check put in (its log says them once it has begun). */
  inputPlaceholders: ReadonlyArray<string> = []
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
        ? (refusal, spent) =>
          askBudgetExtension(
            { events, approvalTimeoutMs: input.approvalTimeoutMs },
            budget,
            usage,
            forecastLeft(forecaster(caps.model, input, events, startedAt), events, input.budget),
            refusal,
            spent
          )
        : undefined
    })
    const seen = [
      ...inputPlaceholders,
      ...(past ?? []).flatMap((e) => (e._tag === "GuardrailTriggered" ? e.placeholders : []))
    ]
    const { context, guardrails } = contextOf(caps, input, runId, events, guard, startedAt, seen)
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
      finish: finishWith(caps, events, guard, input.outputSchema !== undefined, guardrails),
      guardrails
    }
    return session
  })
