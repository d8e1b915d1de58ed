/**
 * The events in which a run asks a person and is answered: a tool call's approval, guidance, the plan's approval, more
 * budget (record/Requests folds them; every surface shows and answers them).
 */
import { Schema } from "effect"
import { BudgetCaps } from "./Budget.js"
import { SemanticValidationReport } from "./Evaluation.js"
import { EventBase as base } from "./EventBase.js"
import { Forecast } from "./Forecast.js"
import { Plan } from "./Plan.js"

export const ApprovalDecision = Schema.Literal("APPROVE", "REJECT", "EDIT")
export type ApprovalDecision = typeof ApprovalDecision.Type
/** A step's tool call waits for a person's decision (the run is AWAITING_INPUT until it is answered). */
export const ApprovalRequested = Schema.TaggedStruct("ApprovalRequested", {
  ...base,
  passNumber: Schema.Int,
  requestId: Schema.String,
  stepId: Schema.String,
  tool: Schema.String,
  input: Schema.Unknown,
  description: Schema.String,
  /** When the request is rejected unless answered (epoch ms), from the run's approvalTimeoutMs. */
  expiresAt: Schema.optional(Schema.Number),
  /** Why it is asked when it is not the tool's or the run's list: untrusted input, and the steps it came from. */
  reason: Schema.optional(Schema.String),
  untrustedSources: Schema.optional(Schema.Array(Schema.String))
})
/** The answer to an approval request: the call runs as asked (APPROVE), with `input` (EDIT), or not (REJECT). */
export const ApprovalAnswered = Schema.TaggedStruct("ApprovalAnswered", {
  ...base,
  requestId: Schema.String,
  decision: ApprovalDecision,
  input: Schema.optional(Schema.Unknown),
  reason: Schema.optional(Schema.String),
  /** Who answered: the user, or "timeout". */
  by: Schema.optional(Schema.String)
})
/** An interactive run asks for a person's guidance where it would need manual intervention (it waits for it). */
export const GuidanceRequested = Schema.TaggedStruct("GuidanceRequested", {
  ...base,
  passNumber: Schema.Int,
  requestId: Schema.String,
  stepId: Schema.String,
  reason: Schema.String,
  expiresAt: Schema.optional(Schema.Number)
})
/** A person's guidance: it enters the planning and refinement prompts from here on (empty: none came in time). */
export const GuidanceProvided = Schema.TaggedStruct("GuidanceProvided", {
  ...base,
  requestId: Schema.String,
  text: Schema.String,
  by: Schema.optional(Schema.String)
})
/**
 * The run waits for a person to approve its validated plan before executing it (run input `approvePlan`): answered
 * by an ApprovalAnswered — APPROVE, EDIT with plan edits (its `input`), or REJECT.
 */
export const PlanApprovalRequested = Schema.TaggedStruct("PlanApprovalRequested", {
  ...base,
  passNumber: Schema.Int,
  requestId: Schema.String,
  plan: Plan,
  report: Schema.optional(SemanticValidationReport),
  forecast: Forecast,
  expiresAt: Schema.optional(Schema.Number)
})
/**
 * An interactive run the budget guard would stop waits for more budget instead (answered by an ApprovalAnswered:
 * APPROVE raises the caps to `proposed`, or to its `input` caps; REJECT or no answer in time stops it as without).
 */
export const BudgetExtensionRequested = Schema.TaggedStruct("BudgetExtensionRequested", {
  ...base,
  requestId: Schema.String,
  /** The cap that refused: llmCalls, tokens, cost or steps; ttl: the last pass its TTL allowed did not converge. */
  dimension: Schema.Literal("cost", "tokens", "llmCalls", "steps", "ttl"),
  limit: Schema.Number,
  used: Schema.Number,
  /** What the refused work needed, as the guard said it. */
  needs: Schema.String,
  /** The caps APPROVE without caps of its own gives: the refused cap doubled. */
  proposed: BudgetCaps,
  /** What the rest of the run is expected to spend, from its plan now. */
  forecast: Schema.optional(Forecast),
  expiresAt: Schema.optional(Schema.Number)
})
