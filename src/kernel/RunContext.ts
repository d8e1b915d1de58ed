import { Context, type Effect, type Ref } from "effect"
import type { Profiled, Service as AdaptiveDepth } from "../adaptive/AdaptiveDepth.js"
import type { Service as ConvergenceEngine } from "../convergence/ConvergenceEngine.js"
import type { ConvergenceCriteria } from "../convergence/Criteria.js"
import type { Budget } from "../domain/Budget.js"
import type { ConvergenceAssessment, SemanticValidationReport } from "../domain/Evaluation.js"
import type { Plan } from "../domain/Plan.js"
import type { PassResult } from "../domain/Result.js"
import type { Llm } from "../llm/Llm.js"
import type { RefinementLedger } from "../planning/RecursivePlanner.js"
import type { Service as RecursivePlanner } from "../planning/RecursivePlanner.js"
import type { Service as Supervisor } from "../supervisor/Supervisor.js"
import type { Service as ToolRegistry } from "../tools/ToolRegistry.js"
import type { ToolInfo } from "../validation/DeterministicChecks.js"
import type { Service as SemanticValidator } from "../validation/SemanticValidator.js"
import type { BudgetGuard } from "./BudgetGuard.js"
import type { RunEvents } from "./RunEvents.js"

/** What the kernel knows of a run while it goes; read after an interruption to build the result. */
export interface RunState {
  readonly plan: Plan
  readonly passNumber: number
  readonly ttlRemaining: number
  readonly profiled?: Profiled | undefined
  readonly report?: SemanticValidationReport | undefined
  readonly assessment?: ConvergenceAssessment | undefined
  readonly ledger: RefinementLedger
  readonly advisories: ReadonlyArray<string>
  readonly followUpQuestions: ReadonlyArray<string>
  readonly manualInterventions: ReadonlyArray<{ readonly stepId: string; readonly reason: string }>
  readonly lastCompletedPass?: PassResult | undefined
  /** Tool results of the current pass: one object per pass, filled in place as its tools finish (copying it per step made a pass quadratic). */
  readonly currentToolResults: Record<string, unknown>
  /** Steps of the current pass cut off by an interruption (each running step records its own). */
  readonly abandonedStepIds?: ReadonlyArray<string> | undefined
  /** After a restart: the run's memory as the tool calls before the crash left it. */
  readonly recoveredMemory?: ReadonlyMap<string, unknown> | undefined
  /** After a restart: tool results of steps whose tool completed before the crash (not run again). */
  readonly recoveredToolResults?: Readonly<Record<string, unknown>> | undefined
}

export interface RunOptions {
  readonly runId: string
  readonly request: string
  readonly budget: Budget
  readonly criteria: ConvergenceCriteria
  /** Independent ready steps run this many at a time (1 = strictly in stepIndex order). */
  readonly parallelism: number
  /** FULL mode after simple mode: what went wrong, given to the planning prompt. */
  readonly escalationContext?: string | undefined
  /** Simple mode: one shallow pass, no refinement. */
  readonly singlePass?: boolean | undefined
}

export interface RunContext extends RunOptions {
  readonly events: RunEvents
  readonly guard: BudgetGuard
  readonly llm: Llm
  readonly tools: ToolRegistry
  readonly toolInfos: ReadonlyArray<ToolInfo>
  readonly memory: Ref.Ref<ReadonlyMap<string, unknown>>
  readonly state: Ref.Ref<RunState>
  readonly validator: SemanticValidator
  readonly convergence: ConvergenceEngine
  readonly planner: RecursivePlanner
  readonly adaptive: AdaptiveDepth
  readonly supervisor: Supervisor
}

/** Tells a run interrupted by a server shutdown not to end as CANCELLED (it resumes on the next start). */
export class RunLifecycle
  extends Context.Tag("aeon/RunLifecycle")<RunLifecycle, { readonly shuttingDown: Effect.Effect<boolean> }>()
{}
