import type { Budget } from "../domain/Budget.js"
import type { Phase } from "../domain/Execution.js"
import { budgetNow, type RunRecord } from "./RunRecord.js"

export interface TimedSpan {
  readonly start: number
  readonly end: number | undefined
  /** Until its end, or until `now` while it goes on. */
  readonly durationMs: number
}

export interface TimelinePass extends TimedSpan {
  readonly passNumber: number
  readonly phases: ReadonlyArray<TimedSpan & { readonly phase: Phase; readonly seq: number }>
  readonly steps: ReadonlyArray<
    TimedSpan & {
      readonly stepId: string
      /** complete, failed, …; "running" while it goes on, "waiting for approval" while its call waits for a person. */
      readonly status: string
      readonly seq: number
      /** Of its span, the time it waited for a person to answer its call (not counted in its duration). */
      readonly waitedMs: number
    }
  >
}

/** One budget: what the run used of it, its cap, what is left. */
export interface Gauge {
  readonly name: "calls" | "tokens" | "cost" | "steps" | "deadline" | "ttl"
  readonly used: number
  readonly cap: number | undefined
  readonly left: number | undefined
}

export interface Timeline {
  readonly startedAt: number | undefined
  readonly finishedAt: number | undefined
  readonly elapsedMs: number
  readonly passes: ReadonlyArray<TimelinePass>
  readonly budget: ReadonlyArray<Gauge>
}

const timed = (start: number, end: number | undefined, now: number): TimedSpan => ({
  start,
  end,
  durationMs: Math.max(0, (end ?? now) - start)
})

const gauge = (name: Gauge["name"], used: number, cap: number | undefined): Gauge => ({
  name,
  used,
  cap,
  left: cap === undefined ? undefined : Math.max(0, cap - used)
})

/**
 * The budget gauges: the run's caps (as RunStarted stated them, raised by the budget extensions given since) against
 * what its record says it used by `now`.
 */
export const gaugesOf = (r: RunRecord, now: number): ReadonlyArray<Gauge> => {
  const caps: Partial<Budget> = r.started?.budget ? budgetNow(r, r.started.budget) : {}
  const started = r.firstAt ?? now
  const end = r.finished?.at ?? now
  return [
    gauge("calls", r.usage.llmCalls, caps.maxLlmCalls),
    gauge("tokens", r.usage.inputTokens + r.usage.outputTokens, caps.maxTokens),
    gauge("cost", r.usage.costUsd, caps.maxCostUsd),
    gauge("steps", r.usage.steps, caps.maxSteps),
    // wall time since the run started (a run started with pauseDeadlineWhileWaiting is not charged its waits by the
    // guard; RunStarted does not say so, and the gauge shows the wall time)
    gauge("deadline", Math.max(0, end - started), caps.deadlineMs),
    gauge("ttl", r.passes.filter((p) => p.passNumber > 0).length, caps.ttl)
  ]
}

/** What a step spent waiting for people to answer its calls within its span, and whether it waits now. */
const waitsOf = (r: RunRecord, passNumber: number, stepId: string, span: TimedSpan, until: number) => {
  let waitedMs = 0
  let waiting = false
  for (const q of r.requests.values()) {
    if (q.request._tag !== "ApprovalRequested" || q.request.stepId !== stepId || q.request.passNumber !== passNumber) {
      continue
    }
    const from = Math.max(span.start, q.request.at)
    const to = Math.min(span.end ?? until, q.answer?.at ?? until)
    waitedMs += Math.max(0, to - from)
    if (!q.answer && span.end === undefined) waiting = true
  }
  return { waitedMs, waiting }
}

/**
 * The run as a timeline: passes, their phases and steps with start, end and duration (open ones run until the run's
 * end, or `now`), and the budget used and left. A projection of the record: the viewer and the API read this.
 */
export const timelineOf = (r: RunRecord, now: number): Timeline => {
  const finishedAt = r.finished?.at
  const until = finishedAt ?? now
  return {
    startedAt: r.firstAt,
    finishedAt,
    elapsedMs: r.firstAt === undefined ? 0 : Math.max(0, until - r.firstAt),
    passes: r.passes.map((p) => ({
      passNumber: p.passNumber,
      ...timed(p.start, p.end ?? finishedAt, until),
      phases: p.phaseSpans.map((s) => ({ phase: s.phase, seq: s.seq, ...timed(s.start, s.end ?? finishedAt, until) })),
      steps: p.stepSpans.map((s) => {
        const span = timed(s.start, s.end, until)
        const { waitedMs, waiting } = waitsOf(r, p.passNumber, s.stepId, span, until)
        return {
          stepId: s.stepId,
          seq: s.seq,
          status: s.status ?? (finishedAt !== undefined ? "abandoned" : waiting ? "waiting for approval" : "running"),
          ...span,
          // a person's time is not the step's
          durationMs: Math.max(0, span.durationMs - waitedMs),
          waitedMs
        }
      })
    })),
    budget: gaugesOf(r, now)
  }
}
