import { emptyUsage, type Usage } from "../domain/Budget.js"
import type { ExecutionHistory } from "../domain/Execution.js"
import type { Plan } from "../domain/Plan.js"
import type { FinalAnswer, TerminationReason, TTLExpirationResponse } from "../domain/Result.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { EscalationEvent, FailureSummary, RunMode, SimpleIterationRecord } from "../domain/SimpleMode.js"
import { foldHistory } from "../kernel/History.js"

export type RunStatus = "QUEUED" | "RUNNING" | "CONVERGED" | "NOT_CONVERGED" | "FAILED" | "CANCELLED"

/** Everything a caller gets back from a run; derived from its events alone. */
export interface RunResult {
  readonly runId: string
  readonly task: string
  readonly mode: RunMode
  readonly model: string
  readonly status: RunStatus
  readonly converged: boolean
  readonly terminationReason?: TerminationReason | undefined
  readonly finalAnswer?: FinalAnswer | undefined
  readonly ttlExpiration?: TTLExpirationResponse | undefined
  readonly error?: string | undefined
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
}

export const resultFromEvents = (events: ReadonlyArray<RunEvent>): RunResult => {
  const started = events.find((e): e is Extract<RunEvent, { _tag: "RunStarted" }> => e._tag === "RunStarted")
  const finished = events.find((e): e is Extract<RunEvent, { _tag: "RunFinished" }> => e._tag === "RunFinished")
  const iterations = events.flatMap((e) => (e._tag === "SimpleIterationFinished" ? [e.record] : []))
  const escalation = events.find((e): e is Extract<RunEvent, { _tag: "Escalated" }> => e._tag === "Escalated")
    ?.escalation
  const lastPlan = [...events].reverse().find((e) => e._tag === "PlanCreated" || e._tag === "RefinementApplied") as {
    plan: Plan
  } | undefined
  return {
    runId: started?.runId ?? events[0]?.runId ?? "",
    task: started?.task ?? "",
    mode: started?.mode ?? "AUTO",
    model: started?.model ?? "",
    status: finished?.status ?? "RUNNING",
    converged: finished?.terminationReason === "converged",
    terminationReason: finished?.terminationReason,
    finalAnswer: finished?.finalAnswer,
    ttlExpiration: finished?.ttlExpiration,
    error: finished?.error,
    usage: finished?.usage ?? emptyUsage,
    plan: finished?.plan ?? lastPlan?.plan,
    history: foldHistory(events, started ? { budget: started.budget, mode: started.mode, model: started.model } : {}),
    advisories: finished?.advisories ?? [],
    followUpQuestions: finished?.followUpQuestions ?? [],
    manualInterventions: finished?.manualInterventions ?? [],
    // an escalated run keeps its summary in the escalation; a run that stopped without escalating, in its final event
    simple: { iterations, failureSummary: escalation?.failureSummary ?? finished?.failureSummary, escalation },
    escalationContext: escalation?.failureSummary.summary,
    startedAt: started?.at ?? 0,
    finishedAt: finished?.at,
    eventCount: events.length
  }
}
