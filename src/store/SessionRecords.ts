import { liveSteps, type Plan } from "../domain/Plan.js"
import type { ExecutionMetadata, ExecutionWave, PrioritizedTaskPlan, TaskDependency } from "../domain/Records.js"
import type { RunRecord } from "../record/RunRecord.js"

/** The execution metadata of a run, projected from its record (the one fold of its events). */
export const executionMetadata = (r: RunRecord): ExecutionMetadata => {
  const first = r.firstAt ?? 0
  return {
    stepsTaken: r.stepsFinished,
    toolCallCounts: { ...r.toolCallCounts },
    thinkingTimeMs: r.thinkingMs,
    toolExecutionTimeMs: r.toolMs,
    totalTimeMs: (r.lastAt ?? first) - first,
    errorCount: r.trace.filter((s) => s.status === "failed").length,
    successRate: r.trace.length === 0 ? 0 : r.trace.filter((s) => s.status === "success").length / r.trace.length
  }
}

/** Execution waves are the plan's dependency layers: wave 1 has no prerequisites, wave n depends on waves < n. */
export const executionWaves = (plan: Plan): Array<ExecutionWave> => {
  const steps = liveSteps(plan.steps)
  const ids = new Set(steps.map((s) => s.stepId))
  const layer = new Map<string, number>()
  const layerOf = (id: string, seen: Set<string>): number => {
    const known = layer.get(id)
    if (known !== undefined) return known
    if (seen.has(id)) return 1 // a cycle: put it where it is reached
    seen.add(id)
    const deps = (steps.find((s) => s.stepId === id)?.dependencies ?? []).filter((d) => ids.has(d))
    const n = deps.length === 0 ? 1 : 1 + Math.max(...deps.map((d) => layerOf(d, seen)))
    layer.set(id, n)
    return n
  }
  const layered = steps.map((s) => ({ step: s, n: layerOf(s.stepId, new Set()) }))
  const waves: Array<{ readonly taskIds: Array<string> }> = []
  for (const { n, step } of layered.sort((a, b) => a.n - b.n || a.step.stepIndex - b.step.stepIndex)) {
    while (waves.length < n) waves.push({ taskIds: [] })
    waves[n - 1]?.taskIds.push(step.stepId)
  }
  return waves.filter((w) => w.taskIds.length > 0).map((w, i): ExecutionWave => ({
    ...w,
    waveNumber: i + 1,
    parallelExecution: w.taskIds.length > 1,
    estimatedDurationHours: null
  }))
}

export const prioritizedPlan = (plan: Plan, summary: string): PrioritizedTaskPlan | null => {
  const steps = liveSteps(plan.steps)
  if (steps.length === 0) return null
  const waves = executionWaves(plan)
  const ids = new Set(steps.map((s) => s.stepId))
  const dependencies: Array<TaskDependency> = steps.flatMap((s) =>
    s.dependencies.filter((d) => ids.has(d) && d !== s.stepId).map((d) => ({
      sourceTaskId: s.stepId,
      targetTaskId: d,
      relationshipType: "prerequisite" as const,
      confidence: 1,
      detectionMethod: "plan" as const
    }))
  )
  const confidence = (status: string, clarity?: string) =>
    status === "complete" ? (clarity === "PARTIALLY_CLEAR" ? 0.5 : 1) : 0
  return {
    orderedTaskIds: waves.flatMap((w) => w.taskIds),
    executionWaves: waves,
    dependencies,
    confidenceScores: Object.fromEntries(steps.map((s) => [s.stepId, confidence(s.status, s.clarityState)])),
    synthesisSummary: summary.slice(0, 2_000)
  }
}
