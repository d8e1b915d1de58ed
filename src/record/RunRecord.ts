import { addCall, addChild, addStep, emptyUsage, type Usage } from "../domain/Budget.js"
import type { ReasoningStep } from "../domain/Records.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { EscalationEvent, SimpleIterationRecord } from "../domain/SimpleIteration.js"
import { applyToAttempt, type AttemptRecord } from "./Attempt.js"
import { type CallsMade, noteCall } from "./Calls.js"
import { applyToPasses, type HoldsPasses } from "./Passes.js"
import { applyProvenance, emptyProvenance, type Provenance } from "./Provenance.js"
import { passesGranted, passesRequestId, type PersonRequest } from "./Requests.js"

export { type PassRecord, type PhaseSpan, type StepSpan } from "./Passes.js"
export {
  type AnsweredEvent,
  type AskedEvent,
  asks,
  asksOrAnswers,
  awaitingInput,
  budgetNow,
  capsGiven,
  guidanceGiven,
  openRequests,
  passesGiven,
  passesGranted,
  passesRequestId,
  pendingApprovals,
  pendingBudgetExtensions,
  pendingGuidance,
  pendingPlanApprovals,
  type PersonRequest,
  waitedMs
} from "./Requests.js"

type Event<T extends RunEvent["_tag"]> = Extract<RunEvent, { _tag: T }>

/**
 * The whole run as its events make it. The one fold of run events: `applyEvent` is its step; the result, the
 * execution history, the recovery point, the stored session and trace, the CLI's live view and the API's views are
 * projections of it.
 */
/** (`callsMade`, `callsFailed`: the calls it made, record/Calls: a later pass reuses or refuses to repeat them.) */
export interface RunRecord extends CallsMade, HoldsPasses {
  runId: string
  started?: Event<"RunStarted"> | undefined
  finished?: Event<"RunFinished"> | undefined
  /** The run is a fork of another, from its event atSeq. */
  forkedFrom?: Event<"RunForked"> | undefined
  /**
   * A fork's steps in flight at its fork point, until they start again on its first resume: the prefix counted
   * their start already (their new start is not counted twice). Undefined once that resume is past.
   */
  inFlightAtFork?: Set<string> | undefined
  forkResumed?: boolean | undefined
  /** The run an earlier plan was reused from (PlanReused): its planning asked no model. */
  planReusedFrom?: string | undefined
  /** The conversation the run is a turn of, as its prompts quote it (ConversationQuoted). */
  conversation?: Event<"ConversationQuoted"> | undefined
  /** What the run recalled of earlier runs (its first MemoryRecalled): recalled once, quoted by each attempt. */
  recalled?: Event<"MemoryRecalled"> | undefined
  /** The models the run's calls went to, in order: its start's, then each a resume changed to. */
  readonly models: Array<string>
  firstAt?: number | undefined
  lastAt?: number | undefined
  eventCount: number
  usage: Usage
  readonly simpleRecords: Array<SimpleIterationRecord>
  escalation?: EscalationEvent | undefined
  attempt?: AttemptRecord | undefined
  /** The last finished simple-mode iteration: its attempt and its answer. */
  lastIteration?:
    | { readonly attempt?: AttemptRecord | undefined; readonly event: Event<"SimpleIterationFinished"> }
    | undefined
  /** The trace of the run: one ReasoningStep per tool call and per step execution. */
  readonly trace: Array<ReasoningStep>
  readonly toolCallCounts: Record<string, number>
  thinkingMs: number
  toolMs: number
  stepsFinished: number
  /** What the run asked a person (approvals, guidance), in the order asked, each with its answer once given. */
  readonly requests: Map<string, PersonRequest>
  /** The forecast made from the validated plan before execution (the last one, for a run of several attempts). */
  forecast?: Event<"ForecastMade"> | undefined
  /** Where its values come from: trusted words, untrusted tool results, when each step was written. */
  readonly provenance: Provenance
}

/** Whether the event begins its run (a run with none has not begun: it waits for admission). */
export const beginsRun = (e: RunEvent): e is Event<"RunStarted"> => e._tag === "RunStarted"

/** Whether the event ends its run: nothing follows it in the run's log. */
export const endsRun = (e: RunEvent): e is Event<"RunFinished"> => e._tag === "RunFinished"

/** Whether a run's events, in order, reach its end. */
export const reachesEnd = (events: ReadonlyArray<RunEvent>) => {
  const last = events.at(-1)
  return last !== undefined && endsRun(last)
}

export const emptyRecord = (): RunRecord => ({
  runId: "",
  models: [],
  eventCount: 0,
  usage: emptyUsage,
  passes: [],
  simpleRecords: [],
  lastPassNumber: -1,
  trace: [],
  descriptions: new Map(),
  toolCallCounts: {},
  callsMade: new Map(),
  callsFailed: new Map(),
  thinkingMs: 0,
  toolMs: 0,
  stepsFinished: 0,
  requests: new Map(),
  provenance: emptyProvenance()
})

const iso = (ms: number) => new Date(ms).toISOString()

/** The trace and the execution metadata's counters. */
const applyToTrace = (r: RunRecord, e: RunEvent) => {
  if (e._tag === "LlmCalled") r.thinkingMs += e.latencyMs
  if (e._tag === "ToolInvoked") {
    noteCall(r, e)
    r.toolCallCounts[e.tool] = (r.toolCallCounts[e.tool] ?? 0) + 1
    r.toolMs += e.durationMs
    r.trace.push({
      stepNumber: r.trace.length + 1,
      timestamp: iso(e.at),
      thought: r.descriptions.get(e.stepId) ?? null,
      toolName: e.tool,
      toolInput: e.input ?? {},
      toolOutput: e.output ?? (e.error ? { error: e.error } : null),
      durationMs: Math.round(e.durationMs),
      status: e.error ? "failed" : "success",
      planStepId: e.stepId
    })
  }
  if (e._tag === "StepFinished" || e._tag === "StepAbandoned") {
    if (e._tag === "StepFinished") r.stepsFinished++
    const failed = e._tag === "StepAbandoned" || e.status !== "complete"
    r.trace.push({
      stepNumber: r.trace.length + 1,
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

/**
 * The run's usage: its calls, its steps, the child runs it called (an agent as a tool: the child's usage is the
 * parent's too, so together they meet its caps); at its end, what its last event says.
 */
const applyToUsage = (r: RunRecord, e: RunEvent) => {
  switch (e._tag) {
    case "RunFinished":
      r.usage = e.usage
      return
    case "LlmCalled":
      // a fork's repeat of a call its prefix holds counts once, as the call did in its source
      if (!r.finished && e.repeats === undefined) r.usage = addCall(r.usage, e)
      return
    case "StepStarted":
      if (r.inFlightAtFork?.delete(e.stepId)) return
      if (!r.finished) r.usage = addStep(r.usage)
      return
    case "ToolInvoked":
      if (!r.finished && e.childRun && !e.replayed && !e.reusedFrom) r.usage = addChild(r.usage, e.childRun.usage)
      return
  }
}

/** What the run asked a person, in order, each with its first answer (and a plan edit asked, once applied). */
const applyToRequests = (r: RunRecord, e: RunEvent) => {
  switch (e._tag) {
    case "ApprovalRequested":
    case "GuidanceRequested":
    case "PlanApprovalRequested":
    case "BudgetExtensionRequested":
      if (!r.requests.has(e.requestId)) r.requests.set(e.requestId, { request: e })
      return
    case "RefinementApplied": {
      const asked = e.requestId === undefined ? undefined : r.requests.get(e.requestId)
      if (asked) asked.applied = true
      return
    }
    case "ApprovalAnswered":
    case "GuidanceProvided": {
      // the first answer stands
      const asked = r.requests.get(e.requestId)
      if (asked && !asked.answer) {
        asked.answer = e
        // passes given at the end of the pass now ending: its evaluation has spent its unit of TTL already
        if (r.attempt && e.requestId === passesRequestId(r.attempt.passNumber)) {
          r.attempt.ttlRemaining += passesGranted(r, r.attempt.passNumber)
        }
      }
      return
    }
  }
}

/** The fold's step: what one event changes. (It updates the record it is given: the record belongs to its fold.) */
export const applyEvent = (r: RunRecord, e: RunEvent): RunRecord => {
  r.runId = e.runId
  r.firstAt ??= e.at
  r.lastAt = e.at
  r.eventCount++
  applyProvenance(r.provenance, e)
  switch (e._tag) {
    case "RunStarted":
      r.started = e
      r.models.push(e.model)
      break
    case "PlanReused":
      r.planReusedFrom = e.fromRun
      break
    case "MemoryRecalled":
      r.recalled ??= e
      break
    case "ConversationQuoted":
      r.conversation = e
      break
    case "RunForked":
      r.forkedFrom = e
      break
    case "RunResumed":
      if (e.model !== undefined && e.model !== r.models.at(-1)) r.models.push(e.model)
      // the fork's first resume reopens what was in flight at the fork point; later resumes are restarts. (The
      // copied prefix may hold its source's own resumes: the fork's first comes after the copies.)
      if (r.forkedFrom && !r.forkResumed && e.seq > r.forkedFrom.copied + 1) {
        r.forkResumed = true
        r.inFlightAtFork = new Set(e.reopenedStepIds)
      }
      break
    case "RunFinished":
      r.finished = e
      break
    case "SimpleIterationFinished":
      r.simpleRecords.push(e.record)
      r.lastIteration = { attempt: r.attempt, event: e }
      r.attempt = undefined
      break
    case "Escalated":
      r.escalation = e.escalation
      r.attempt = undefined
      break
    case "ForecastMade":
      r.forecast = e
      break
  }
  applyToUsage(r, e)
  applyToRequests(r, e)
  applyToAttempt(r, e)
  // an evaluation made again after a restart (its phase restored to its checkpoint) counts the passes given after it
  if (e._tag === "ConvergenceAssessed" && r.attempt) r.attempt.ttlRemaining += passesGranted(r, e.passNumber)
  applyToPasses(r, e)
  applyToTrace(r, e)
  return r
}

/** The record of a run from its events, in order. */
export const foldEvents = (events: ReadonlyArray<RunEvent>): RunRecord => {
  const r = emptyRecord()
  for (const e of events) applyEvent(r, e)
  return r
}
