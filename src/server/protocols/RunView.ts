import type { RunEvent } from "../../domain/RunEvent.js"
import { openRequests } from "../../record/Requests.js"
import { requestMessage } from "../../record/Requests.js"
import { applyEvent, emptyRecord, type RunRecord } from "../../record/RunRecord.js"
import { planOf, statusOf } from "../../record/RunResult.js"

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
  const plan = planOf(record)
  const assessed = record.passes.findLast((p) => p.convergence !== undefined)
  const { costUsd, inputTokens, llmCalls, outputTokens, steps } = record.usage
  return {
    runId: record.started?.runId ?? run?.id ?? record.runId,
    task: record.started?.task ?? run?.task ?? "",
    mode: record.started?.mode ?? run?.mode ?? "AUTO",
    status: statusOf(record),
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
  /** Each key's JSON as last given: what a new view is compared with. */
  const given = new Map(Object.entries(view).map(([key, value]) => [key, JSON.stringify(value)]))
  return {
    view: () => view,
    next: (event: RunEvent): Partial<RunView> => {
      record = applyEvent(record, event)
      view = viewOf(record, run)
      const changed: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(view)) {
        const json = JSON.stringify(value)
        if (json === given.get(key)) continue
        given.set(key, json)
        changed[key] = value
      }
      return changed as Partial<RunView>
    }
  }
}
