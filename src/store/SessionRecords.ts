import { liveSteps, type Plan } from "../domain/Plan.js"
import type {
  ExecutionMetadata,
  ExecutionWave,
  PrioritizedTaskPlan,
  ReasoningStep,
  TaskDependency
} from "../domain/Records.js"
import type { RunEvent } from "../domain/RunEvent.js"

const iso = (ms: number) => new Date(ms).toISOString()

/** The trace of a run: one ReasoningStep per step execution and per tool call, in order. */
export const traceSteps = (events: ReadonlyArray<RunEvent>): Array<ReasoningStep> => {
  const steps: Array<ReasoningStep> = []
  const descriptions = new Map<string, string>()
  for (const e of events) {
    if (e._tag === "PassStarted" && e.plan) { for (const s of e.plan.steps) descriptions.set(s.stepId, s.description) }
    if (e._tag === "PlanCreated" || e._tag === "RefinementApplied") {
      for (const s of e.plan.steps) descriptions.set(s.stepId, s.description)
    }
    if (e._tag === "ToolInvoked") {
      steps.push({
        stepNumber: steps.length + 1,
        timestamp: iso(e.at),
        thought: descriptions.get(e.stepId) ?? null,
        toolName: e.tool,
        toolInput: e.input ?? {},
        toolOutput: e.output ?? (e.error ? { error: e.error } : null),
        durationMs: Math.round(e.durationMs),
        status: e.error ? "failed" : "success",
        planStepId: e.stepId
      })
    }
    if (e._tag === "StepFinished" || e._tag === "StepAbandoned") {
      const failed = e._tag === "StepAbandoned" || e.status !== "complete"
      steps.push({
        stepNumber: steps.length + 1,
        timestamp: iso(e.at),
        thought: e._tag === "StepFinished" ? (e.stepOutput || e.error || null) : `abandoned: ${e.reason}`,
        toolName: null,
        toolInput: null,
        toolOutput: null,
        durationMs: e._tag === "StepFinished" ? Math.round(e.durationMs) : 0,
        status: e._tag === "StepAbandoned" ? "skipped" : failed ? "failed" : "success",
        planStepId: e.stepId
      })
    }
  }
  return steps
}

export const executionMetadata = (
  events: ReadonlyArray<RunEvent>,
  trace: ReadonlyArray<ReasoningStep>
): ExecutionMetadata => {
  const toolCallCounts: Record<string, number> = {}
  let thinking = 0
  let tools = 0
  for (const e of events) {
    if (e._tag === "ToolInvoked") {
      toolCallCounts[e.tool] = (toolCallCounts[e.tool] ?? 0) + 1
      tools += e.durationMs
    }
    if (e._tag === "LlmCalled") thinking += e.latencyMs
  }
  const first = events[0]?.at ?? 0
  const last = events[events.length - 1]?.at ?? first
  return {
    stepsTaken: events.filter((e) => e._tag === "StepFinished").length,
    toolCallCounts,
    thinkingTimeMs: thinking,
    toolExecutionTimeMs: tools,
    totalTimeMs: last - first,
    errorCount: trace.filter((s) => s.status === "failed").length,
    successRate: trace.length === 0 ? 0 : trace.filter((s) => s.status === "success").length / trace.length
  }
}

/** Execution waves are the plan's dependency layers: wave 1 has no prerequisites, wave n depends on waves < n. */
export const executionWaves = (plan: Plan): Array<ExecutionWave> => {
  const steps = liveSteps(plan.steps)
  const ids = new Set(steps.map((s) => s.stepId))
  const layer = new Map<string, number>()
  const layerOf = (id: string, seen: Set<string>): number => {
    if (layer.has(id)) return layer.get(id)!
    if (seen.has(id)) return 1 // a cycle: put it where it is reached
    seen.add(id)
    const step = steps.find((s) => s.stepId === id)!
    const deps = step.dependencies.filter((d) => ids.has(d))
    const n = deps.length === 0 ? 1 : 1 + Math.max(...deps.map((d) => layerOf(d, seen)))
    layer.set(id, n)
    return n
  }
  for (const s of steps) layerOf(s.stepId, new Set())
  const waves: Array<ExecutionWave> = []
  for (const s of [...steps].sort((a, b) => layer.get(a.stepId)! - layer.get(b.stepId)! || a.stepIndex - b.stepIndex)) {
    const n = layer.get(s.stepId)!
    while (waves.length < n) {
      waves.push({ waveNumber: waves.length + 1, taskIds: [], parallelExecution: false, estimatedDurationHours: null })
    }
    ;(waves[n - 1]!.taskIds as Array<string>).push(s.stepId)
  }
  return waves.filter((w) => w.taskIds.length > 0).map((w, i) => ({
    ...w,
    waveNumber: i + 1,
    parallelExecution: w.taskIds.length > 1
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
