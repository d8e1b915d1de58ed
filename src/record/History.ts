import type { ExecutionHistory, ExecutionPass } from "../domain/Execution.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { foldEvents, type RunRecord } from "./RunRecord.js"

const iso = (ms: number) => new Date(ms).toISOString()

/** ExecutionHistory of a run's events: the stream, the store and the inspector cannot disagree. */
export const foldHistory = (events: ReadonlyArray<RunEvent>, configuration: Record<string, unknown> = {}) =>
  historyOf(foldEvents(events), configuration)

/** ExecutionHistory as a projection of the run's record (the one fold of its events). */
export const historyOf = (r: RunRecord, configuration: Record<string, unknown> = {}): ExecutionHistory => {
  const first = r.firstAt ?? 0
  const task = r.started?.task ?? ""
  const finished = r.finished
  const passes = r.passes
  const last = r.lastAt ?? first
  const built: Array<ExecutionPass> = passes.map((p) => ({
    passNumber: p.passNumber,
    phase: p.phases[p.phases.length - 1] ?? "PLAN",
    phases: p.phases,
    planState: p.plan ?? { goal: task || "(no plan)", steps: [] },
    executionResults: p.executionResults,
    evaluationResults: {
      ...(p.validationReport ? { validationReport: p.validationReport } : {}),
      ...(p.convergence ? { convergence: p.convergence } : {})
    },
    refinementChanges: p.refinementChanges,
    advisories: p.advisories,
    ttlRemaining: Math.max(0, p.ttlRemaining),
    ...(p.profile ? { taskProfile: p.profile } : {}),
    ...(p.depth ? { depthConfiguration: p.depth } : {}),
    timingInformation: {
      startTime: iso(p.start),
      endTime: iso(p.end ?? last),
      durationSeconds: ((p.end ?? last) - p.start) / 1000
    }
  }))
  const converged = finished?.terminationReason === "converged"
  return {
    executionId: r.runId,
    taskInput: task,
    configuration,
    passes: built,
    finalResult: {
      converged,
      resultType: finished?.terminationReason ?? "running",
      output: finished?.finalAnswer ?? null,
      metadata: {
        status: finished?.status ?? "RUNNING",
        ...(finished?.ttlExpiration ? { ttlExpiration: finished.ttlExpiration } : {})
      }
    },
    overallStatistics: {
      totalPasses: built.length,
      totalRefinements: built.reduce((n, p) => n + p.refinementChanges.length, 0),
      convergenceAchieved: converged,
      totalTimeSeconds: (last - first) / 1000
    }
  }
}
