import { Schema } from "effect"
import { Budget, Usage } from "./Budget.js"
import { ConversationQuotedFields } from "./Conversation.js"
import { ConvergenceAssessment, SemanticValidationReport } from "./Evaluation.js"
import { EventBase } from "./EventBase.js"
import { Phase, RefinementAction } from "./Execution.js"
import { Forecast } from "./Forecast.js"
import { RecalledMemory } from "./Memory.js"
import { Plan, StepStatus } from "./Plan.js"
import { AdaptiveDepthConfiguration, TaskProfile } from "./Profile.js"
import {
  ApprovalAnswered,
  ApprovalRequested,
  BudgetExtensionRequested,
  GuidanceProvided,
  GuidanceRequested,
  PlanApprovalRequested
} from "./RequestEvents.js"
import { FinalAnswerFields, TerminationReason, TTLExpirationResponse } from "./Result.js"
import { FINAL_STATUSES } from "./RunStatus.js"
import { EscalationEvent, FailureSummary, RunMode, SimpleIterationRecord } from "./SimpleIteration.js"
import { UntrustedPolicy } from "./UntrustedPolicy.js"

const base = EventBase

export * from "./RequestEvents.js"

/** An agent as its run recorded it (the definition's schema is the agents room's: agents/Agent). */
export const RunAgent = Schema.Struct({
  name: Schema.String,
  version: Schema.optional(Schema.Int),
  definition: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type RunAgent = typeof RunAgent.Type

/** A run of an agent a step called as a tool: its id, the agent, how it ended and what it used (the parent's too). */
export const ChildRun = Schema.Struct({
  runId: Schema.String,
  agent: Schema.String,
  version: Schema.optional(Schema.Int),
  status: Schema.String,
  usage: Usage
})
export type ChildRun = typeof ChildRun.Type

export const RunStarted = Schema.TaggedStruct("RunStarted", {
  ...base,
  task: Schema.String,
  mode: RunMode,
  budget: Budget,
  model: Schema.String,
  escalationContext: Schema.optional(Schema.String),
  /** false: the run recalls nothing of earlier runs and leaves no memory (its input's `memory`, or AEON_MEMORY=off). */
  memory: Schema.optional(Schema.Boolean),
  /** The labels its input gave (an eval's, a protocol's conversation): kept with the run. */
  tags: Schema.optional(Schema.Array(Schema.String)),
  /** The thread the run is a turn of (its input's threadId). */
  threadId: Schema.optional(Schema.String),
  /** The operator's instructions it was given (its input's): in its plan and answer calls' system prompt. */
  instructions: Schema.optional(Schema.String),
  /** TRUSTED: the run takes its tools' outputs as trusted (no call is held for them; docs/untrusted-data.md). */
  toolOutputs: Schema.optional(Schema.Literal("TRUSTED", "UNTRUSTED")),
  /** What the operator allowed arguments to take from untrusted data (AEON_UNTRUSTED_POLICY), as the run began. */
  untrustedPolicy: Schema.optional(UntrustedPolicy),
  /** The agent it is a run of: its name, version and the whole definition it ran with (agents/Agent). */
  agent: Schema.optional(RunAgent),
  /** The run that called this one's agent as a tool. */
  parentRunId: Schema.optional(Schema.String)
})
export const PassStarted = Schema.TaggedStruct("PassStarted", {
  ...base,
  passNumber: Schema.Int,
  ttlRemaining: Schema.Int,
  plan: Schema.optional(Plan)
})
export const PhaseEntered = Schema.TaggedStruct("PhaseEntered", { ...base, passNumber: Schema.Int, phase: Phase })
export const ProfileInferred = Schema.TaggedStruct("ProfileInferred", {
  ...base,
  passNumber: Schema.Int,
  profile: TaskProfile,
  depth: AdaptiveDepthConfiguration,
  previousVersion: Schema.optional(Schema.Int),
  /** The TTL left once this profile holds (a revision moves it within the budget's cap). */
  ttlRemaining: Schema.optional(Schema.Int)
})
export const PlanCreated = Schema.TaggedStruct("PlanCreated", { ...base, passNumber: Schema.Int, plan: Plan })
/** Before planning: the memories of earlier runs the plan prompt quotes, each with its source and why it was chosen. */
export const MemoryRecalled = Schema.TaggedStruct("MemoryRecalled", {
  ...base,
  passNumber: Schema.Int,
  memories: Schema.Array(RecalledMemory)
})
/** Before planning: the conversation the run is a turn of, as its plan and answer prompts quote it (domain/Conversation). */
export const ConversationQuoted = Schema.TaggedStruct("ConversationQuoted", { ...base, ...ConversationQuotedFields })
/**
 * The run starts from the final plan of an earlier converged run of its user (the PlanCreated that follows holds it,
 * its steps pending): no profile or plan call. `match`: the tasks were equal once normalized, or similar.
 */
export const PlanReused = Schema.TaggedStruct("PlanReused", {
  ...base,
  passNumber: Schema.Int,
  fromRun: Schema.String,
  match: Schema.Literal("equal", "similar"),
  /** The task of the run the plan comes from. */
  task: Schema.String
})
/**
 * What a plan call was offered of the run's tools (planning/ToolCatalog): `tools` their names (empty: planned without
 * the catalog, a task needing no tool), `total` how many the run has, `selected` chosen by the task past the bound.
 */
export const ToolsOffered = Schema.TaggedStruct("ToolsOffered", {
  ...base,
  passNumber: Schema.Int,
  tools: Schema.Array(Schema.String),
  total: Schema.Int,
  selected: Schema.Boolean
})
export const StepStarted = Schema.TaggedStruct("StepStarted", {
  ...base,
  passNumber: Schema.Int,
  stepId: Schema.String,
  stepIndex: Schema.Int,
  /** The handoffs the step receives from the steps before it. */
  incomingContext: Schema.optional(Schema.String)
})
export const StepFinished = Schema.TaggedStruct("StepFinished", {
  ...base,
  passNumber: Schema.Int,
  stepId: Schema.String,
  status: StepStatus,
  stepOutput: Schema.String,
  clarityState: Schema.optional(Schema.String),
  handoffToNext: Schema.String,
  error: Schema.optional(Schema.String),
  durationMs: Schema.Number,
  /**
   * Who wrote the output: its tool's result as it is ("tool", no reasoning call), the planner's answer to a step
   * needing no tool ("plan", no reasoning call) or the model's reasoning call ("model").
   */
  outputBy: Schema.optional(Schema.Literal("tool", "model", "plan"))
})
export const StepAbandoned = Schema.TaggedStruct("StepAbandoned", {
  ...base,
  passNumber: Schema.Int,
  stepId: Schema.String,
  reason: Schema.String
})
export const ToolInvoked = Schema.TaggedStruct("ToolInvoked", {
  ...base,
  passNumber: Schema.Int,
  stepId: Schema.String,
  tool: Schema.String,
  input: Schema.Unknown,
  output: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.String),
  durationMs: Schema.Number,
  /** The MCP server the tool belongs to, and the size of its result as JSON (tools of MCP servers only). */
  server: Schema.optional(Schema.String),
  resultBytes: Schema.optional(Schema.Int),
  /** What the call wrote to the run's short-term memory (any tool may): a resumed run's memory is rebuilt from these. */
  memoryWrites: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  /** A fork's call answered by its source's recording of the same call: the tool was not called again. */
  replayed: Schema.optional(Schema.Boolean),
  /**
   * A call with side effects this run had already made with the same input, in an earlier pass (another iteration,
   * the escalation, a refinement): its result reused, the tool not called again — the call that was made.
   */
  reusedFrom: Schema.optional(Schema.Struct({ seq: Schema.Int, passNumber: Schema.Int, stepId: Schema.String })),
  /** The tool reads the outside world: its result is untrusted data (record/Provenance). */
  untrusted: Schema.optional(Schema.Boolean),
  /** The call changes something outside the run (what untrusted data may not steer; run/PolicyCheck reads it). */
  actsOutside: Schema.optional(Schema.Boolean),
  /** The call was a run of an agent (agents as tools): its usage counts in this run's. */
  childRun: Schema.optional(ChildRun),
  /** The call went to a remote A2A agent: the remote task's id. */
  remoteTaskId: Schema.optional(Schema.String)
})
/** A model call as recorded (AEON_RECORD_PROMPTS, on by default): who asked, what was sent, what came back. */
export const RecordedCall = Schema.Struct({
  /** 1, or 2 for the call made again with a larger cap after a truncated answer. */
  attempt: Schema.Int,
  passNumber: Schema.optional(Schema.Int),
  phase: Schema.optional(Schema.String),
  stepId: Schema.optional(Schema.String),
  system: Schema.String,
  user: Schema.String,
  response: Schema.optional(Schema.String),
  /** What the model thought before it answered (extended thinking), kept with the call and never in an answer. */
  thinking: Schema.optional(Schema.String),
  finishReason: Schema.optional(Schema.String),
  output: Schema.optional(Schema.Unknown),
  decodeError: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String)
})
export type RecordedCall = typeof RecordedCall.Type

export const LlmCalled = Schema.TaggedStruct("LlmCalled", {
  ...base,
  promptId: Schema.String,
  model: Schema.String,
  inputTokens: Schema.Int,
  outputTokens: Schema.Int,
  /** Of the input tokens, those read from the provider's prompt cache. */
  cachedTokens: Schema.optional(Schema.Int),
  /** Of the input tokens, those written to the provider's prompt cache (priced at its cache-write rate). */
  cacheWriteTokens: Schema.optional(Schema.Int),
  costUsd: Schema.Number,
  latencyMs: Schema.Number,
  error: Schema.optional(Schema.String),
  /** Models of a fallback chain that failed before `model` answered ("label: why"). */
  failedModels: Schema.optional(Schema.Array(Schema.String)),
  /** Answered from a recording of the same call (a fork, a replay): nothing was sent, nothing paid. */
  replayed: Schema.optional(Schema.Boolean),
  /**
   * A fork made again a call its copied prefix already holds (resuming, it made a phase cut at the fork point
   * again): the seq of that call in the source. Not counted in usage a second time.
   */
  repeats: Schema.optional(Schema.Int),
  /** Requests sent to the provider for this call, retries included (1 when absent). */
  requests: Schema.optional(Schema.Int),
  /** The provider reported no usage (missing, 0, not a number): the tokens are Aeon's count, on the high side. */
  estimated: Schema.optional(Schema.Boolean),
  /** The prompt and the answer, when calls are recorded (Run.llmCalls reads them). */
  call: Schema.optional(RecordedCall)
})
export const ValidationReported = Schema.TaggedStruct("ValidationReported", {
  ...base,
  passNumber: Schema.Int,
  report: SemanticValidationReport
})
export const ConvergenceAssessed = Schema.TaggedStruct("ConvergenceAssessed", {
  ...base,
  passNumber: Schema.Int,
  assessment: ConvergenceAssessment
})
export const RefinementApplied = Schema.TaggedStruct("RefinementApplied", {
  ...base,
  passNumber: Schema.Int,
  actions: Schema.Array(RefinementAction),
  plan: Plan,
  advisories: Schema.Array(Schema.String),
  /** The refinement ledger after this phase: attempts per fragment and in all, rejected ones included (FR-065/066). */
  ledger: Schema.optional(Schema.Struct({
    perFragment: Schema.Record({ key: Schema.String, value: Schema.Int }),
    total: Schema.Int
  })),
  followUpQuestions: Schema.optional(Schema.Array(Schema.String)),
  /** The plan approval request whose edits these are (a person's EDIT of the plan, not the planner's refinement). */
  requestId: Schema.optional(Schema.String)
})
export const ManualInterventionRequired = Schema.TaggedStruct("ManualInterventionRequired", {
  ...base,
  passNumber: Schema.Int,
  stepId: Schema.String,
  reason: Schema.String
})
/** Something the run noticed and went on from: a repaired plan, a replaced tool, a failed profile revision. */
export const AdvisoryRaised = Schema.TaggedStruct("AdvisoryRaised", {
  ...base,
  passNumber: Schema.Int,
  advisory: Schema.String
})
/**
 * A guardrail matched (guardrails/): at which point, which one, what it did, the kinds it found and the placeholders
 * it put in — never the matched text.
 */
export const GuardrailTriggered = Schema.TaggedStruct("GuardrailTriggered", {
  ...base,
  point: Schema.Literal("input", "tool_call", "tool_result", "output"),
  guardrail: Schema.String,
  action: Schema.Literal("redact", "block"),
  kinds: Schema.Array(Schema.String),
  placeholders: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  passNumber: Schema.optional(Schema.Int),
  stepId: Schema.optional(Schema.String)
})
/** The run's forecast from its validated plan, before execution (planning/Forecast). */
export const ForecastMade = Schema.TaggedStruct("ForecastMade", {
  ...base,
  passNumber: Schema.Int,
  forecast: Forecast
})
/**
 * The run is a fork: its log goes on from `from`'s events up to `atSeq` (copied after this event, their times moved
 * to end when the fork was made). Its model calls are answered from `from`'s recordings until one differs.
 */
export const RunForked = Schema.TaggedStruct("RunForked", {
  ...base,
  from: Schema.String,
  atSeq: Schema.Int,
  /** How many of `from`'s events were copied after this one. */
  copied: Schema.Int,
  /** What the fork changed: "budget", "approval", "guidance", "planEdits", "model". */
  changed: Schema.Array(Schema.String),
  /** The model the fork's live calls go to (one of the configured models), when it changed it. */
  model: Schema.optional(Schema.String)
})
/**
 * The run goes on after its process stopped (a crash, a restart): steps started and not finished then run again;
 * `reopenedStepIds` names them.
 */
export const RunResumed = Schema.TaggedStruct("RunResumed", {
  ...base,
  reopenedStepIds: Schema.Array(Schema.String),
  /** The model the run's calls go to from here, when it is not the one they went to before (a server's new provider). */
  model: Schema.optional(Schema.String)
})
export const PassFinished = Schema.TaggedStruct("PassFinished", {
  ...base,
  passNumber: Schema.Int,
  ttlRemaining: Schema.Int
})
export const SimpleIterationFinished = Schema.TaggedStruct("SimpleIterationFinished", {
  ...base,
  record: SimpleIterationRecord,
  /**
   * How the iteration ended and its answer: a run that dies after this event and before its next one resumes
   * with this outcome (to finish with it, or to escalate from it).
   */
  terminationReason: Schema.optional(TerminationReason),
  error: Schema.optional(Schema.String),
  finalAnswer: Schema.optional(FinalAnswerFields),
  ttlExpiration: Schema.optional(TTLExpirationResponse)
})
export const Escalated = Schema.TaggedStruct("Escalated", { ...base, escalation: EscalationEvent })
export const RunFinished = Schema.TaggedStruct("RunFinished", {
  ...base,
  status: Schema.Literal(...FINAL_STATUSES),
  terminationReason: TerminationReason,
  finalAnswer: Schema.optional(FinalAnswerFields),
  ttlExpiration: Schema.optional(TTLExpirationResponse),
  usage: Usage,
  error: Schema.optional(Schema.String),
  /** The error's code where a caller may act on it: OUTPUT_SCHEMA (no value of the run's output schema). */
  errorCode: Schema.optional(Schema.String),
  plan: Schema.optional(Plan),
  advisories: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  followUpQuestions: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  manualInterventions: Schema.optionalWith(
    Schema.Array(Schema.Struct({ stepId: Schema.String, reason: Schema.String })),
    { default: () => [] }
  ),
  failureSummary: Schema.optional(FailureSummary)
})

export const RunEvent = Schema.Union(
  RunStarted,
  PassStarted,
  PhaseEntered,
  ProfileInferred,
  PlanCreated,
  MemoryRecalled,
  ConversationQuoted,
  PlanReused,
  ToolsOffered,
  StepStarted,
  StepFinished,
  StepAbandoned,
  ToolInvoked,
  LlmCalled,
  ValidationReported,
  ConvergenceAssessed,
  RefinementApplied,
  ManualInterventionRequired,
  AdvisoryRaised,
  GuardrailTriggered,
  RunResumed,
  RunForked,
  ForecastMade,
  PlanApprovalRequested,
  BudgetExtensionRequested,
  ApprovalRequested,
  ApprovalAnswered,
  GuidanceRequested,
  GuidanceProvided,
  PassFinished,
  SimpleIterationFinished,
  Escalated,
  RunFinished
)
export type RunEvent = typeof RunEvent.Type
export type RunEventTag = RunEvent["_tag"]
export const RUN_EVENT_TAGS: ReadonlyArray<RunEventTag> = [
  "RunStarted",
  "PassStarted",
  "PhaseEntered",
  "ProfileInferred",
  "PlanCreated",
  "MemoryRecalled",
  "ConversationQuoted",
  "PlanReused",
  "ToolsOffered",
  "StepStarted",
  "StepFinished",
  "StepAbandoned",
  "ToolInvoked",
  "LlmCalled",
  "ValidationReported",
  "ConvergenceAssessed",
  "RefinementApplied",
  "ManualInterventionRequired",
  "AdvisoryRaised",
  "GuardrailTriggered",
  "RunResumed",
  "RunForked",
  "ForecastMade",
  "PlanApprovalRequested",
  "BudgetExtensionRequested",
  "ApprovalRequested",
  "ApprovalAnswered",
  "GuidanceRequested",
  "GuidanceProvided",
  "PassFinished",
  "SimpleIterationFinished",
  "Escalated",
  "RunFinished"
] satisfies ReadonlyArray<RunEventTag>

/** An event before the bus stamps it with run id, sequence number and time. */
export type RunEventBody = RunEvent extends infer E ? E extends RunEvent ? Omit<E, "runId" | "seq" | "at"> : never
  : never
