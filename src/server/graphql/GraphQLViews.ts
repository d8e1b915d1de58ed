import type { Usage } from "../../domain/Budget.js"
import type { ConvergenceAssessment, SemanticValidationReport } from "../../domain/Evaluation.js"
import type { ExecutionHistory, RefinementAction } from "../../domain/Execution.js"
import type { Forecast } from "../../domain/Forecast.js"
import type { Memory, RecalledMemory } from "../../domain/Memory.js"
import type { Plan } from "../../domain/Plan.js"
import type { AdaptiveDepthConfiguration, TaskProfile } from "../../domain/Profile.js"
import type { RunEvent } from "../../domain/RunEvent.js"
import type { SimpleIterationRecord } from "../../domain/SimpleIteration.js"
import type { LlmOutputDelta } from "../../journal/RunOutput.js"
import { llmCallsOf } from "../../record/LlmCalls.js"
import type { RunRecord } from "../../record/RunRecord.js"
import type { ForecastError, RunResult } from "../../record/RunResult.js"
import { type TimedSpan, timelineOf } from "../../record/Timeline.js"
import type { StoreWaitView } from "../../runs/StoreWaitFeed.js"
import { executionMetadata, prioritizedPlan } from "../../store/SessionRecords.js"
import { memoizeWeak } from "../../support/Memoize.js"
import type * as G from "./generated/graphql.js"

export const iso = (ms: number) => new Date(ms).toISOString()

export const planView = (p: Plan): G.Plan => ({
  goal: p.goal,
  steps: p.steps.map((s) => ({
    stepId: s.stepId,
    stepIndex: s.stepIndex,
    description: s.description,
    tool: s.tool ?? null,
    toolInput: s.toolInput ?? null,
    dependencies: [...s.dependencies],
    status: s.status,
    stepOutput: s.stepOutput,
    clarityState: s.clarityState ?? null,
    error: s.error ?? null,
    supersededBy: s.supersededBy ?? null,
    manualIntervention: s.manualIntervention ?? null,
    subplan: s.subplan ?? null,
    answer: s.answer ?? null
  })),
  answer: p.answer ?? null
})

export const reportView = (r: SemanticValidationReport): G.ValidationReport => ({
  validationId: r.validationId,
  artifactType: r.artifactType,
  overallSeverity: r.overallSeverity,
  issueSummary: r.issueSummary,
  advisories: [...r.advisories],
  decidedBy: r.decidedBy ?? null,
  issues: r.issues.map((i) => ({
    issueId: i.issueId,
    type: i.type,
    severity: i.severity,
    description: i.description,
    stepId: i.location?.stepId ?? null,
    proposedRepair: i.proposedRepair ?? null,
    source: i.source ?? null
  }))
})

export const assessmentView = (a: ConvergenceAssessment): G.ConvergenceAssessment => ({
  converged: a.converged,
  reasonCodes: [...a.reasonCodes],
  completenessScore: a.scores.completenessScore,
  coherenceScore: a.scores.coherenceScore,
  consistencyStatus: a.scores.consistencyStatus,
  explanation: a.explanation,
  detectedIssues: [...a.detectedIssues],
  decidedBy: a.decidedBy ?? null
})

const actionView = (a: RefinementAction): G.RefinementAction => ({
  actionType: a.actionType,
  targetStepId: a.targetStepId ?? null,
  justification: a.justification,
  newStep: a.newStep ?? null,
  inconsistencyDetected: a.inconsistencyDetected
})
const profileView = (p: TaskProfile): G.TaskProfile => ({ ...p })
const depthView = (d: AdaptiveDepthConfiguration): G.DepthConfiguration => ({
  detectedComplexity: d.detectedComplexity,
  allocatedTtl: d.allocatedTtl,
  reasoningMode: d.reasoningMode,
  adjustmentReason: d.adjustmentReason,
  heuristicsUsed: [...d.heuristicsUsed],
  ambiguityScore: d.ambiguityScore ?? null,
  uncertaintyScore: d.uncertaintyScore ?? null
})
const iterationView = (r: SimpleIterationRecord): G.SimpleIteration => ({
  ...r,
  failedTests: [...r.failedTests],
  errorMessages: [...r.errorMessages]
})

export const historyView = (h: ExecutionHistory): G.ExecutionHistory => ({
  totalPasses: h.overallStatistics.totalPasses,
  totalRefinements: h.overallStatistics.totalRefinements,
  convergenceAchieved: h.overallStatistics.convergenceAchieved,
  totalTimeSeconds: h.overallStatistics.totalTimeSeconds,
  passes: h.passes.map((p) => ({
    passNumber: p.passNumber,
    phases: [...p.phases],
    plan: planView(p.planState),
    executionResults: p.executionResults,
    validationReport: p.evaluationResults.validationReport ? reportView(p.evaluationResults.validationReport) : null,
    convergence: p.evaluationResults.convergence ? assessmentView(p.evaluationResults.convergence) : null,
    refinements: p.refinementChanges.map(actionView),
    advisories: [...p.advisories],
    ttlRemaining: p.ttlRemaining,
    profile: p.taskProfile ? profileView(p.taskProfile) : null,
    depth: p.depthConfiguration ? depthView(p.depthConfiguration) : null,
    startTime: p.timingInformation.startTime,
    endTime: p.timingInformation.endTime,
    durationSeconds: p.timingInformation.durationSeconds
  }))
})

export const outcomeView = (r: RunResult): G.RunOutcome => ({
  terminationReason: r.terminationReason ?? null,
  converged: r.converged,
  error: r.error ?? null,
  errorCode: r.errorCode ?? null,
  advisories: [...r.advisories],
  followUpQuestions: [...r.followUpQuestions],
  manualInterventions: r.manualInterventions.map((m) => ({ ...m })),
  ttlExpiration: r.ttlExpiration ?
    {
      expirationPoint: r.ttlExpiration.expirationPoint,
      exhausted: r.ttlExpiration.exhausted ?? null,
      latestPassResult: r.ttlExpiration.latestPassResult ?? null,
      partialResult: r.ttlExpiration.partialResult ?? null,
      completenessScore: r.ttlExpiration.ttlExpiredMetadata.completenessScore,
      coherenceScore: r.ttlExpiration.ttlExpiredMetadata.coherenceScore,
      reasonCodes: [...r.ttlExpiration.ttlExpiredMetadata.reasonCodes],
      passNumber: r.ttlExpiration.ttlExpiredMetadata.passNumber
    } :
    null
})

export const escalationView = (r: RunResult): G.Escalation => ({
  iterations: r.simple.iterations.map(iterationView),
  escalated: r.simple.escalation !== undefined,
  reason: r.simple.escalation?.reason ?? null,
  remainingBudget: r.simple.escalation?.remainingBudget ?? null,
  failureSummary: r.simple.failureSummary ?
    {
      totalIterations: r.simple.failureSummary.totalIterations,
      totalDurationMs: r.simple.failureSummary.totalDurationMs,
      totalCostUsd: r.simple.failureSummary.totalCostUsd,
      uniqueErrors: r.simple.failureSummary.uniqueErrors,
      finalTestState: [...r.simple.failureSummary.finalTestState],
      summary: r.simple.failureSummary.summary
    } :
    null
})

export const prioritizedPlanView = (r: RunResult): G.PrioritizedPlan | null => {
  const p = r.plan ? prioritizedPlan(r.plan, r.finalAnswer?.answerText ?? "") : null
  return p && {
    orderedStepIds: [...p.orderedTaskIds],
    waves: p.executionWaves.map((w) => ({
      waveNumber: w.waveNumber,
      stepIds: [...w.taskIds],
      parallelExecution: w.parallelExecution
    })),
    dependencies: p.dependencies.map((d) => ({
      source: d.sourceTaskId,
      target: d.targetTaskId,
      relationshipType: d.relationshipType
    }))
  }
}

export const traceView = (runId: string, record: RunRecord): G.ReasoningTrace => {
  const steps = record.trace
  return {
    id: `trace-${runId}`,
    totalSteps: steps.length,
    steps: steps.map((s) => ({ ...s, planStepId: s.planStepId ?? null }))
  }
}

export const metadataView = (record: RunRecord): G.ExecutionMetadata => executionMetadata(record)

export const forecastView = (f: Forecast): G.Forecast => ({
  expected: f.expected,
  worstCase: f.worstCase,
  perStep: f.perStep.map((s) => ({ stepId: s.stepId, expected: s.expected, worstCase: s.worstCase })),
  expectedPasses: f.passes.expected,
  worstCasePasses: f.passes.worstCase,
  spent: f.spent,
  basis: f.basis,
  similarRuns: f.similarRuns
})

export const forecastErrorView = (e: ForecastError): G.ForecastError => ({
  llmCalls: e.llmCalls ?? null,
  tokens: e.tokens ?? null,
  costUsd: e.costUsd ?? null,
  wallMs: e.wallMs ?? null,
  withinWorstCase: e.withinWorstCase
})

/**
 * A `runEvents` payload, one object per event for every subscriber it is fanned out to (its view built once, not
 * once per subscriber).
 */
export const sharedEventPayload = memoizeWeak((e: RunEvent) => ({ runEvents: eventView(e) }))

/** An event's view built once and shared by every subscriber it is fanned out to. */
export const sharedEventView = (e: RunEvent) => sharedEventPayload(e).runEvents

/** A `runEventBatches` payload, one object per burst (its first event and its length: a run's seqs are contiguous). */
const batchPayloads = memoizeWeak((_: RunEvent) =>
  new Map<number, { readonly runEventBatches: ReadonlyArray<unknown> }>()
)
export const sharedBatchPayload = (events: ReadonlyArray<RunEvent>) => {
  const byLength = batchPayloads(events[0]!)
  let payload = byLength.get(events.length)
  if (payload === undefined) byLength.set(events.length, payload = { runEventBatches: events.map(sharedEventView) })
  return payload
}

/** A RunEvent as its GraphQL type: common fields, the whole payload, and the kind's own fields. */
/** A run event as resolvers hand it to GraphQL: its concrete type's name and its fields. */
export type EventView = { readonly __typename: string } & Record<string, unknown>

export const eventView = (e: RunEvent): EventView => {
  const { runId, seq, at, _tag, ...rest } = e
  const common = { __typename: `${_tag}Event`, runId, seq, at: iso(at), type: _tag, payload: rest }
  switch (e._tag) {
    case "ProfileInferred":
      return { ...common, passNumber: e.passNumber, profile: profileView(e.profile), depth: depthView(e.depth) }
    case "PlanCreated":
      return { ...common, passNumber: e.passNumber, plan: planView(e.plan) }
    case "MemoryRecalled":
      return { ...common, passNumber: e.passNumber, memories: e.memories.map(memoryView) }
    case "ConversationQuoted":
      return { ...common, conversation: conversationView(e) }
    case "ValidationReported":
      return { ...common, passNumber: e.passNumber, report: reportView(e.report) }
    case "ConvergenceAssessed":
      return { ...common, passNumber: e.passNumber, assessment: assessmentView(e.assessment) }
    case "RefinementApplied":
      return { ...common, passNumber: e.passNumber, actions: e.actions.map(actionView), advisories: [...e.advisories] }
    case "SimpleIterationFinished":
      return { ...common, record: iterationView(e.record) }
    case "ForecastMade":
      return { ...common, passNumber: e.passNumber, forecast: forecastView(e.forecast) }
    case "PlanApprovalRequested":
      return {
        ...common,
        passNumber: e.passNumber,
        requestId: e.requestId,
        plan: planView(e.plan),
        forecast: forecastView(e.forecast)
      }
    case "Escalated":
      return { ...common, reason: e.escalation.reason, iterationsRun: e.escalation.iterationsRun }
    case "StepFinished":
      return { ...common, ...rest, stepStatus: e.status }
    case "LlmCalled": {
      // the prompt and the answer are read through Run.llmCalls, not sent with every event
      const { call, ...summary } = rest as typeof rest & { call?: unknown }
      return { ...common, payload: summary, ...summary, recorded: call !== undefined }
    }
    case "RunFinished":
      return {
        ...common,
        status: e.status,
        terminationReason: e.terminationReason,
        finalAnswer: e.finalAnswer ?? null,
        usage: usageView(e.usage)
      }
    default:
      return { ...common, ...rest }
  }
}

/** A run's usage as GraphQL's Usage type gives it: the counts a run may lack (no cached or estimated calls) as 0. */
export const usageView = (u: Usage) => ({
  ...u,
  cachedTokens: u.cachedTokens ?? 0,
  estimatedCalls: u.estimatedCalls ?? 0
})

/** A page of the run's recorded model calls (record/LlmCalls) after the cursor (a seq). */
export const llmCallsView = (events: ReadonlyArray<RunEvent>, first: number, after: string | undefined) => {
  const from = after === undefined ? 0 : Number(Buffer.from(after, "base64url").toString().replace(/^call:/, ""))
  const calls = llmCallsOf(events).filter((c) => c.seq > from)
  const page = calls.slice(0, first)
  const cursor = (seq: number) => Buffer.from(`call:${seq}`).toString("base64url")
  return {
    edges: page.map((c) => ({
      cursor: cursor(c.seq),
      node: { ...c, at: iso(c.at), failedModels: [...c.failedModels] }
    })),
    pageInfo: {
      endCursor: ((last) => (last ? cursor(last.seq) : null))(page.at(-1)),
      hasNextPage: calls.length > first
    }
  }
}

/** Whether a client's `after` is a cursor of llmCalls. */
export const isCallCursor = (after: string) => /^call:\d+$/.test(Buffer.from(after, "base64url").toString())

const isoOrNull = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString())

/** Run.timeline: the record's timeline with its times as the API writes them. */
export const timelineView = (r: RunRecord, now: number) => {
  const t = timelineOf(r, now)
  const span = <S extends TimedSpan>(x: S) => ({ ...x, start: new Date(x.start).toISOString(), end: isoOrNull(x.end) })
  return {
    startedAt: isoOrNull(t.startedAt),
    finishedAt: isoOrNull(t.finishedAt),
    elapsedMs: t.elapsedMs,
    passes: t.passes.map((p) => ({ ...span(p), phases: p.phases.map(span), steps: p.steps.map(span) })),
    budget: t.budget.map((g) => ({ ...g, cap: g.cap ?? null, left: g.left ?? null }))
  }
}

/** A `runOutput` payload: the piece with its absent fields as GraphQL's nulls. */
/** A run's store wait as GraphQL's StoreWait. */
export const storeWaitView = (w: StoreWaitView) => ({
  runId: w.runId,
  waiting: w.waiting,
  cause: w.cause ?? null,
  since: w.since === undefined ? null : new Date(w.since).toISOString()
})

export const outputDeltaPayload = (d: LlmOutputDelta) => ({
  runOutput: {
    ...d,
    passNumber: d.passNumber ?? null,
    stepId: d.stepId ?? null,
    answerText: d.answerText ?? null
  }
})

/** A memory as GraphQL shows it (its kind in capitals, as the schema's enum). */
export const memoryView = <M extends Memory | RecalledMemory>(m: M): Omit<M, "kind"> & { kind: G.MemoryKind } => ({
  ...m,
  kind: m.kind.toUpperCase() as G.MemoryKind
})

/** What a run quoted of its conversation (ConversationQuoted). */
export const conversationView = (e: Extract<RunEvent, { _tag: "ConversationQuoted" }>): G.RunConversation => {
  const summary = e.summary ?? e.prior
  return {
    threadId: e.threadId ?? null,
    turn: e.turn ?? null,
    messages: e.total,
    summarised: summary?.covers ?? 0,
    summary: summary?.text ?? null,
    compacted: e.summary !== undefined,
    tokens: e.tokens,
    text: e.text
  }
}
