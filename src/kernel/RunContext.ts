import { Context, type Effect } from "effect"
import type { ConvergenceCriteria } from "../convergence/Criteria.js"
import type { PreparedOutputSchema } from "../convergence/OutputSchema.js"
import type { Attached } from "../domain/Attachment.js"
import type { Budget } from "../domain/Budget.js"
import type { Forecast } from "../domain/Forecast.js"
import type { Plan } from "../domain/Plan.js"
import type { RunJournal } from "../journal/RunJournal.js"
import type { Llm } from "../llm/Llm.js"
import type { ConversationSource } from "../memory/Conversation.js"
import type { RunMemory } from "../memory/RunMemory.js"
import type { Service as ToolRegistry } from "../tools/ToolRegistry.js"
import type { ToolInfo } from "../validation/DeterministicChecks.js"
import type { BudgetGuard } from "./BudgetGuard.js"
import type { RunGuardrails } from "./Guarding.js"

export interface RunOptions {
  readonly runId: string
  readonly request: string
  readonly budget: Budget
  readonly criteria: ConvergenceCriteria
  /** The run's output schema, prepared (run input outputSchema): the answer is a value of it (kernel/TypedAnswer). */
  readonly outputSchema?: PreparedOutputSchema | undefined
  /** Independent ready steps run this many at a time (1 = strictly in stepIndex order). */
  readonly parallelism: number
  /** FULL mode after simple mode: what went wrong, given to the planning prompt. */
  readonly escalationContext?: string | undefined
  /** Simple mode: one shallow pass, no refinement. */
  readonly singlePass?: boolean | undefined
  /** Tools whose calls wait for a person's approval (names, `*`: every tool with side effects). */
  readonly approvalTools: ReadonlyArray<string>
  /** A call untrusted data steered: waits for a person's approval, or fails its step (AEON_UNTRUSTED_CALLS). */
  readonly untrustedCalls?: "approve" | "fail" | undefined
  /** Ask for guidance (and wait) where the run would need manual intervention. */
  readonly interactive?: boolean | undefined
  /** An approval request not answered in this time is rejected. */
  readonly approvalTimeoutMs?: number | undefined
  /** Plan and forecast only: the run stops before its first execution pass. */
  readonly dryRun?: boolean | undefined
  /** The validated plan waits for a person's approval (with its forecast) before it executes. */
  readonly approvePlan?: boolean | undefined
  /** The forecast of a validated plan with this many execution passes left (run/Forecasting). */
  readonly forecast: (
    plan: Plan,
    passesLeft: number,
    options?: { readonly singlePass?: boolean | undefined }
  ) => Effect.Effect<Forecast>
}

export interface RunContext extends RunOptions {
  /** The pass the attempt starts at (0, or after earlier attempts' passes). */
  readonly firstPass: number
  /** The run's events: emitting one is the only way the run's state changes (see `kernel/RunState`). */
  readonly events: RunJournal
  readonly guard: BudgetGuard
  readonly llm: Llm
  readonly tools: ToolRegistry
  readonly toolInfos: ReadonlyArray<ToolInfo>
  /** The task's files and images: the plan and the answer calls carry them. */
  readonly attachments: ReadonlyArray<Attached>
  /** The conversation the run is a turn of (its thread, or its client's history); absent for a run on its own. */
  readonly conversation?: ConversationSource | undefined
  /** The user's memory across runs (recall, plan reuse, notes); absent when the run's memory is off. */
  readonly memory?: RunMemory | undefined
  /**
   * One permit: the run's calls of tools with side effects (not idempotent) are made one at a time, while the rest of
   * its steps run at once — a crash then finds at most one such call in flight, the one a resume may repeat.
   */
  readonly sideEffects: Effect.Semaphore
  /** The run's guardrails at its tool calls, tool results and answer (kernel/Guarding; Guarding.none without any). */
  readonly guardrails: RunGuardrails
}

/**
 * The process's word on the run's attempt: interrupted by a server shutdown (or taken up elsewhere), it does not end as
 * CANCELLED (it resumes on the next start, or goes on where it was taken up).
 */
export class RunLifecycle extends Context.Tag("aeon/RunLifecycle")<RunLifecycle, {
  /** Whether an interruption now leaves the run unfinished (it resumes elsewhere or later): nothing more is written. */
  readonly shuttingDown: Effect.Effect<boolean>
  /** Before a call with side effects: ends the attempt here (a defect) when another process has taken the run up. */
  readonly stillHeld?: Effect.Effect<void> | undefined
}>() {}
