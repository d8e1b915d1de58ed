/**
 * The events of a step's work: its start, end and abandonment, its tool call (a child run's, when the tool was an
 * agent), and the model calls a run makes (each recorded with what was sent and what came back).
 */
import { Schema } from "effect"
import { Usage } from "./Budget.js"
import { EventBase } from "./EventBase.js"
import { StepStatus } from "./Plan.js"

const base = EventBase

/** A run of an agent a step called as a tool: its id, the agent, how it ended and what it used (the parent's too). */
export const ChildRun = Schema.Struct({
  runId: Schema.String,
  agent: Schema.String,
  version: Schema.optional(Schema.Int),
  status: Schema.String,
  usage: Usage
})
export type ChildRun = typeof ChildRun.Type

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
