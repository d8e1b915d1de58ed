import type { Usage } from "../domain/Budget.js"
import type { ExecutionHistory } from "../domain/Execution.js"
import type { Forecast } from "../domain/Forecast.js"
import type { Plan } from "../domain/Plan.js"
import type { FinalAnswer, TerminationReason, TTLExpirationResponse } from "../domain/Result.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { RunStatus } from "../domain/RunStatus.js"
import type { EscalationEvent, FailureSummary, RunMode, SimpleIterationRecord } from "../domain/SimpleIteration.js"
import { attemptPlan } from "./Attempt.js"
import { historyOf } from "./History.js"
import { awaitingInput, foldEvents, type RunRecord } from "./RunRecord.js"

export type { RunStatus } from "../domain/RunStatus.js"

/** Everything a caller gets back from a run; derived from its events alone. */
export interface RunResult {
  readonly runId: string
  readonly task: string
  readonly mode: RunMode
  /** The model the run's calls go to now (the last of `models`). */
  readonly model: string
  /** The run whose plan this one reused (its planning asked no model). */
  readonly planReusedFrom?: string | undefined
  /** Every model the run's calls went to, in order: more than one when it was resumed on another. */
  readonly models: ReadonlyArray<string>
  readonly status: RunStatus
  readonly converged: boolean
  readonly terminationReason?: TerminationReason | undefined
  readonly finalAnswer?: FinalAnswer | undefined
  readonly ttlExpiration?: TTLExpirationResponse | undefined
  readonly error?: string | undefined
  /** The error's code a caller may act on: OUTPUT_SCHEMA (the answer has no value of the run's output schema). */
  readonly errorCode?: string | undefined
  readonly usage: Usage
  readonly plan?: Plan | undefined
  readonly history: ExecutionHistory
  readonly advisories: ReadonlyArray<string>
  readonly followUpQuestions: ReadonlyArray<string>
  readonly manualInterventions: ReadonlyArray<{ readonly stepId: string; readonly reason: string }>
  readonly simple: {
    readonly iterations: ReadonlyArray<SimpleIterationRecord>
    readonly failureSummary?: FailureSummary | undefined
    readonly escalation?: EscalationEvent | undefined
  }
  readonly escalationContext?: string | undefined
  readonly startedAt: number
  readonly finishedAt?: number | undefined
  readonly eventCount: number
  /** The forecast made from the validated plan before execution, and once the run ended how far off it was. */
  readonly forecast?: Forecast | undefined
  readonly forecastError?: ForecastError | undefined
}

/** Forecast against actual, for each figure: (actual − expected) / actual; none where the actual is 0. */
export interface ForecastError {
  readonly llmCalls: number | undefined
  readonly tokens: number | undefined
  readonly costUsd: number | undefined
  readonly wallMs: number | undefined
  /** Whether the actual stayed at or under the worst case, on every figure. */
  readonly withinWorstCase: boolean
}

/** How far the forecast was from what the run used (a finished run's usage and wall time). */
export const forecastErrorOf = (forecast: Forecast, usage: Usage, wallMs: number): ForecastError => {
  const actual = {
    llmCalls: usage.llmCalls,
    tokens: usage.inputTokens + usage.outputTokens,
    costUsd: usage.costUsd,
    wallMs
  }
  const rel = (k: keyof typeof actual) => actual[k] === 0 ? undefined : (actual[k] - forecast.expected[k]) / actual[k]
  return {
    llmCalls: rel("llmCalls"),
    tokens: rel("tokens"),
    costUsd: rel("costUsd"),
    wallMs: rel("wallMs"),
    withinWorstCase: (["llmCalls", "tokens", "costUsd"] as const).every((k) =>
      actual[k] <= forecast.worstCase[k] + 1e-12
    )
  }
}

/** The result of a run's events. */
export const resultFromEvents = (events: ReadonlyArray<RunEvent>): RunResult => resultOf(foldEvents(events))

/** The result as a projection of the run's record (the one fold of its events). */
/** A run's status as its record has it (QUEUED is the store's: a run not begun has no record). */
export const statusOf = (r: RunRecord): RunStatus =>
  r.finished?.status ?? (awaitingInput(r) ? "AWAITING_INPUT" : "RUNNING")

/** The run's plan: the final one, else as its steps have left it so far. */
export const planOf = (r: RunRecord): Plan | undefined =>
  r.finished?.plan ?? (r.attempt ? attemptPlan(r.attempt) : r.lastPlan)

export const resultOf = (r: RunRecord): RunResult => {
  const { started, finished, escalation } = r
  return {
    runId: started?.runId ?? r.runId,
    task: started?.task ?? "",
    mode: started?.mode ?? "AUTO",
    model: r.models.at(-1) ?? started?.model ?? "",
    ...(r.planReusedFrom !== undefined ? { planReusedFrom: r.planReusedFrom } : {}),
    models: r.models.length > 0 ? [...r.models] : started ? [started.model] : [],
    status: statusOf(r),
    converged: finished?.terminationReason === "converged",
    terminationReason: finished?.terminationReason,
    finalAnswer: finished?.finalAnswer,
    ttlExpiration: finished?.ttlExpiration,
    error: finished?.error,
    ...(finished?.errorCode !== undefined ? { errorCode: finished.errorCode } : {}),
    // what the run has used so far (the record adds every call and step as it comes; RunFinished's at the end)
    usage: r.usage,
    plan: planOf(r),
    history: historyOf(r, started ? { budget: started.budget, mode: started.mode, model: started.model } : {}),
    advisories: finished?.advisories ?? [],
    followUpQuestions: finished?.followUpQuestions ?? [],
    manualInterventions: finished?.manualInterventions ?? [],
    // an escalated run keeps its summary in the escalation; a run that stopped without escalating, in its final event
    simple: {
      iterations: [...r.simpleRecords],
      failureSummary: escalation?.failureSummary ?? finished?.failureSummary,
      escalation
    },
    escalationContext: escalation?.failureSummary.summary,
    startedAt: started?.at ?? 0,
    finishedAt: finished?.at,
    eventCount: r.eventCount,
    forecast: r.forecast?.forecast,
    forecastError: r.forecast && finished && started
      ? forecastErrorOf(r.forecast.forecast, finished.usage, finished.at - started.at)
      : undefined
  }
}

/** The execution passes a run made (pass 0 plans; a pass counts once it executed steps): what summaries report. */
export const executionPasses = (r: RunResult): number =>
  r.history.passes.filter((p) => p.passNumber > 0 && p.phases.some((ph) => ph === "EXECUTE" || ph === "RE_EXECUTE"))
    .length
