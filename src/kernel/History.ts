import type { ConvergenceAssessment, SemanticValidationReport } from "../domain/Evaluation.js"
import type { ExecutionHistory, ExecutionPass, Phase, RefinementAction } from "../domain/Execution.js"
import type { Plan } from "../domain/Plan.js"
import type { AdaptiveDepthConfiguration, TaskProfile } from "../domain/Profile.js"
import type { RunEvent } from "../domain/RunEvent.js"

interface PassBuilder {
  passNumber: number
  phases: Array<Phase>
  plan?: Plan
  executionResults: Record<
    string,
    { stepOutput: string; clarityState?: string; status: string; toolResult?: unknown; error?: string }
  >
  validationReport?: SemanticValidationReport
  convergence?: ConvergenceAssessment
  refinementChanges: Array<RefinementAction>
  advisories: Array<string>
  ttlRemaining: number
  profile?: TaskProfile
  depth?: AdaptiveDepthConfiguration
  start: number
  end?: number
}

const iso = (ms: number) => new Date(ms).toISOString()

/** ExecutionHistory as a fold of a run's events: the stream, the store and the inspector cannot disagree. */
export const foldHistory = (
  events: ReadonlyArray<RunEvent>,
  configuration: Record<string, unknown> = {}
): ExecutionHistory => {
  const passes: Array<PassBuilder> = []
  let current: PassBuilder | undefined
  let profile: TaskProfile | undefined
  let depth: AdaptiveDepthConfiguration | undefined
  let task = ""
  let runId = ""
  let finished: Extract<RunEvent, { _tag: "RunFinished" }> | undefined
  const first = events[0]?.at ?? 0
  for (const e of events) {
    runId = e.runId
    switch (e._tag) {
      case "RunStarted":
        task = e.task
        break
      case "PassStarted":
        current = {
          passNumber: e.passNumber,
          phases: [],
          executionResults: {},
          refinementChanges: [],
          advisories: [],
          ttlRemaining: e.ttlRemaining,
          start: e.at,
          ...(e.plan ? { plan: e.plan } : {}),
          ...(profile ? { profile } : {}),
          ...(depth ? { depth } : {})
        }
        passes.push(current)
        break
      case "PhaseEntered":
        current?.phases.push(e.phase)
        break
      case "ProfileInferred":
        profile = e.profile
        depth = e.depth
        if (current) {
          current.profile = e.profile
          current.depth = e.depth
        }
        break
      case "PlanCreated":
        if (current && current.passNumber === 0) current.plan = e.plan
        break
      case "StepFinished":
        if (current) {
          current.executionResults[e.stepId] = {
            ...current.executionResults[e.stepId],
            stepOutput: e.stepOutput,
            status: e.status,
            ...(e.clarityState ? { clarityState: e.clarityState } : {}),
            ...(e.error ? { error: e.error } : {})
          }
        }
        break
      case "StepAbandoned":
        if (current) {
          current.executionResults[e.stepId] = {
            ...current.executionResults[e.stepId],
            stepOutput: "",
            status: "abandoned",
            error: e.reason
          }
        }
        break
      case "ToolInvoked":
        if (current) {
          current.executionResults[e.stepId] = {
            stepOutput: "",
            status: "running",
            ...current.executionResults[e.stepId],
            toolResult: e.output !== undefined ? e.output : { error: e.error }
          }
        }
        break
      case "ValidationReported":
        if (current) current.validationReport = e.report
        break
      case "ConvergenceAssessed":
        if (current) current.convergence = e.assessment
        break
      case "RefinementApplied":
        if (current) {
          current.refinementChanges.push(...e.actions)
          current.advisories.push(...e.advisories)
          if (current.passNumber === 0) current.plan = e.plan
        }
        break
      case "ManualInterventionRequired":
        current?.advisories.push(`manual intervention required for ${e.stepId}: ${e.reason}`)
        break
      case "PassFinished":
        if (current) {
          current.end = e.at
          current = undefined
        }
        break
      case "RunFinished":
        finished = e
        break
    }
  }
  const last = events[events.length - 1]?.at ?? first
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
    executionId: runId,
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
