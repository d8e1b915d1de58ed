import type { RunEvent } from "../../domain/RunEvent.js"
import { attemptPlan } from "../../record/Attempt.js"
import { openRequests } from "../../record/Requests.js"
import { applyEvent, emptyRecord, type RunRecord } from "../../record/RunRecord.js"
import { resultOf } from "../../record/RunResult.js"
import { requestMessage } from "../McpAsking.js"

/**
 * What a protocol shows of a run as state (AG-UI's STATE_SNAPSHOT / STATE_DELTA, the UI stream's `data-*` parts): a
 * projection of the run's record, the one fold of its events.
 */
export interface RunView {
  readonly runId: string
  readonly task: string
  readonly mode: string
  readonly status: string
  readonly budget: Readonly<Record<string, number>> | null
  readonly usage: {
    readonly llmCalls: number
    readonly inputTokens: number
    readonly outputTokens: number
    readonly costUsd: number
    readonly steps: number
  }
  readonly plan: {
    readonly goal: string
    readonly steps: ReadonlyArray<
      { readonly stepId: string; readonly description: string; readonly tool: string | null; readonly status: string }
    >
  } | null
  readonly convergence: {
    readonly passNumber: number
    readonly converged: boolean
    readonly completenessScore: number
    readonly reasonCodes: ReadonlyArray<string>
  } | null
  /** What the run waits for a person to answer. */
  readonly waitingFor: ReadonlyArray<{ readonly requestId: string; readonly kind: string; readonly message: string }>
}

/** `run`: the run's id, task and mode before it has begun (its record has no RunStarted yet). */
export const viewOf = (
  record: RunRecord,
  run?: { readonly id: string; readonly task: string; readonly mode: string }
): RunView => {
  const result = resultOf(record)
  const plan = record.attempt && record.attempt.plan.steps.length > 0
    ? attemptPlan(record.attempt)
    : record.lastPlan ?? result.plan
  const assessed = [...record.passes].reverse().find((p) => p.convergence !== undefined)
  const { llmCalls, inputTokens, outputTokens, costUsd, steps } = record.usage
  return {
    runId: record.started?.runId ?? run?.id ?? result.runId,
    task: record.started?.task ?? run?.task ?? result.task,
    mode: record.started?.mode ?? run?.mode ?? result.mode,
    status: result.status,
    budget: record.started ? { ...record.started.budget } : null,
    usage: { llmCalls, inputTokens, outputTokens, costUsd, steps },
    plan: plan
      ? {
        goal: plan.goal,
        steps: plan.steps.map((s) => ({
          stepId: s.stepId,
          description: s.description,
          tool: s.tool ?? null,
          status: s.status
        }))
      }
      : null,
    convergence: assessed?.convergence
      ? {
        passNumber: assessed.passNumber,
        converged: assessed.convergence.converged,
        completenessScore: assessed.convergence.scores.completenessScore,
        reasonCodes: assessed.convergence.reasonCodes
      }
      : null,
    waitingFor: openRequests(record).map((r) => ({
      requestId: r.requestId,
      kind: r._tag,
      message: requestMessage(r)
    }))
  }
}

/**
 * A run's view kept by folding its events one by one: `next` gives the keys an event changed (what a delta carries);
 * none for most events.
 */
export const viewFold = (
  events: ReadonlyArray<RunEvent>,
  run?: { readonly id: string; readonly task: string; readonly mode: string }
) => {
  let record = events.reduce(applyEvent, emptyRecord())
  let view = viewOf(record, run)
  return {
    view: () => view,
    next: (event: RunEvent): Partial<RunView> => {
      record = applyEvent(record, event)
      const now = viewOf(record, run)
      const changed: Record<string, unknown> = {}
      for (const key of Object.keys(now) as Array<keyof RunView>) {
        if (JSON.stringify(now[key]) !== JSON.stringify(view[key])) changed[key] = now[key]
      }
      view = now
      return changed as Partial<RunView>
    }
  }
}
