import { Schema } from "effect"
import { Budget, Usage } from "./Budget.js"
import { ConversationQuotedFields } from "./Conversation.js"
import { ConvergenceAssessment, SemanticValidationReport } from "./Evaluation.js"
import { EventBase } from "./EventBase.js"
import { Phase, RefinementAction } from "./Execution.js"
import { Forecast } from "./Forecast.js"
import { RecalledMemory } from "./Memory.js"
import { Plan } from "./Plan.js"
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
import { LlmCalled, StepAbandoned, StepFinished, StepStarted, ToolInvoked } from "./StepEvents.js"
import { UntrustedPolicy } from "./UntrustedPolicy.js"

const base = EventBase

export * from "./RequestEvents.js"
export * from "./StepEvents.js"

/** An agent as its run recorded it (the definition's schema is the agents room's: agents/Agent). */
export const RunAgent = Schema.Struct({
  name: Schema.String,
  version: Schema.optional(Schema.Int),
  definition: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type RunAgent = typeof RunAgent.Type

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
