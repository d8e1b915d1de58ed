import { Clock, Effect } from "effect"
import type { FailureSummary, SimpleIterationRecord } from "../domain/SimpleIteration.js"
import type { Outcome } from "../kernel/Orchestrator.js"

/** The same error counted once: numbers, ids and step ids normalised away. */
export const errorSignature = (message: string): string =>
  message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>")
    .replace(/\bs\d+(?:\.[\w]+)*\b/g, "<step>")
    .replace(/\$?-?\d+(?:\.\d+)?/g, "<n>")
    .replace(/\s+/g, " ")
    .trim()

export const MAX_SUMMARY_LENGTH = 1_000

/** A step error that is its tool's refusal ("s1: fs.read_text_file: Access denied …"), not the model's failure. */
const TOOL_ERROR = /^[\w.-]+: (?!reasoning failed|truncated|repair)[\w.-]+: /

/** How the last iteration stopped, as far as the failure summary reads it (kernel/Stop). */
export interface LastStop {
  readonly unrecoverable?: boolean | undefined
  readonly toolOutage?: string | undefined
}

/** Why the iterations failed when more depth cannot help; undefined when it may. */
export const failureCause = (
  records: ReadonlyArray<SimpleIterationRecord>,
  last: LastStop = {}
): FailureSummary["cause"] => {
  if (last.toolOutage !== undefined) return "tool_unavailable"
  if (last.unrecoverable === true) return "provider_failed"
  if (records.length > 0 && records.every((r) => r.abstained === true)) return "abstained"
  const signatures = new Set(records.flatMap((r) => r.errorMessages.map(errorSignature)))
  const refusals = records.every((r) => r.errorMessages.length > 0 && r.errorMessages.every((m) => TOOL_ERROR.test(m)))
  return records.length >= 2 && signatures.size === 1 && refusals ? "tool_refused" : undefined
}

const CAUSE_TEXT: Record<NonNullable<FailureSummary["cause"]>, string> = {
  abstained: "More depth cannot help: the model said on every iteration that it cannot do this.",
  tool_refused: "More depth cannot help: the tool gave the same refusal on every iteration.",
  tool_unavailable: "More depth cannot help: a tool failed so that retrying cannot fix it.",
  provider_failed: "More depth cannot help: the model provider cannot serve the run."
}

export const summarizeFailures = (
  records: ReadonlyArray<SimpleIterationRecord>,
  last: LastStop = {}
): FailureSummary => {
  const cause = failureCause(records, last)
  const signatures = new Map<string, { count: number; example: string }>()
  for (const r of records) {
    for (const m of r.errorMessages) {
      const sig = errorSignature(m)
      const seen = signatures.get(sig)
      signatures.set(sig, { count: (seen?.count ?? 0) + 1, example: seen?.example ?? m })
    }
  }
  const uniqueErrors = [...signatures].map(([signature, v]) => ({ signature, count: v.count, example: v.example }))
  const finalTestState = [...(records[records.length - 1]?.failedTests ?? [])]
  const failedCounts = new Map<string, number>()
  for (const r of records) for (const t of r.failedTests) failedCounts.set(t, (failedCounts.get(t) ?? 0) + 1)
  const text = [
    `${records.length} simple iteration${records.length === 1 ? "" : "s"} did not pass.`,
    failedCounts.size > 0
      ? `Criteria that failed: ${[...failedCounts].map(([t, n]) => `${t} (${n}×)`).join(", ")}.`
      : "",
    uniqueErrors.length > 0 ? `Errors: ${uniqueErrors.map((u) => `${u.example} (${u.count}×)`).join("; ")}.` : "",
    finalTestState.length > 0 ? `Last state: ${finalTestState.join(", ")}.` : "",
    `Last attempt: ${records[records.length - 1]?.changeSummary ?? "none"}.`,
    cause ? CAUSE_TEXT[cause] : ""
  ].filter(Boolean).join(" ")
  return {
    totalIterations: records.length,
    totalDurationMs: records.reduce((n, r) => n + r.durationMs, 0),
    totalCostUsd: records.reduce((n, r) => n + r.costUsd, 0),
    records,
    uniqueErrors,
    finalTestState,
    ...(cause ? { cause } : {}),
    summary: text.length > MAX_SUMMARY_LENGTH ? `${text.slice(0, MAX_SUMMARY_LENGTH - 1)}…` : text
  }
}

/** What one simple iteration amounts to, judged by the convergence engine and the run's criteria. */
export const iterationRecord = (
  iteration: number,
  outcome: Outcome,
  previousPlan: string | undefined,
  durationMs: number,
  costUsd: number
): SimpleIterationRecord => {
  const steps = outcome.state.plan.steps
  const planText = steps.map((s) => s.description).join("; ")
  const stepErrors = steps.filter((s) => s.status === "failed" && s.error).map((s) => `${s.stepId}: ${s.error}`)
  const errorMessages = [
    ...(outcome.stop.reason === "failed" && outcome.stop.error ? [outcome.stop.error] : []),
    ...stepErrors
  ]
  const passed = outcome.stop.reason === "converged"
  const failedTests = [...(outcome.state.assessment?.failedCriteria ?? [])]
  const testStatus = passed ? "passed" : errorMessages.length > 0 ? "error" : "failed"
  const live = steps.filter((s) => s.supersededBy === undefined)
  const abstained = !passed && live.length > 0 && live.every((s) => s.clarityState === "BLOCKED")
  return {
    iteration,
    changeSummary: previousPlan === undefined
      ? `plan of ${steps.length} step(s): ${planText}`.slice(0, 500)
      : previousPlan === planText
      ? "same plan as the previous iteration"
      : `new plan: ${planText}`.slice(0, 500),
    testStatus,
    failedTests: testStatus === "failed" && failedTests.length === 0 ? [outcome.stop.reason] : failedTests,
    errorMessages,
    durationMs,
    costUsd,
    ...(abstained ? { abstained } : {})
  }
}

/** An iteration that ran the same plan as the one before and failed the same way. */
const repeats = (record: SimpleIterationRecord, before: SimpleIterationRecord) =>
  record.changeSummary === "same plan as the previous iteration" && record.testStatus === before.testStatus &&
  JSON.stringify([record.failedTests, record.errorMessages.map(errorSignature)]) ===
    JSON.stringify([before.failedTests, before.errorMessages.map(errorSignature)])

/**
 * Whether an iteration ends the iterations: it passed, the budget ran out, a person stopped it (a rejected plan) or it
 * was a dry run, its provider cannot serve the run, or it failed as the one before did (another would repeat it). The
 * one rule, for the loop and for a restart that finds the last iteration finished.
 */
export const endsIterations = (
  record: SimpleIterationRecord,
  stop: { readonly reason: string; readonly unrecoverable?: boolean | undefined },
  before: SimpleIterationRecord | undefined
): boolean =>
  record.testStatus === "passed" || stop.unrecoverable === true ||
  ["converged", "budget_exhausted", "cancelled", "dry_run"].includes(stop.reason) ||
  (before !== undefined && repeats(record, before))

export interface SimpleIteration {
  readonly outcome: Outcome
  readonly record: SimpleIterationRecord
}

/** Runs `attempt` up to `n` times until one passes; stops early when the budget is spent. A restarted run passes its earlier records and the attempt it was in. */
export const iterate = (
  n: number,
  firstPass: number,
  attempt: (firstPass: number) => Effect.Effect<Outcome>,
  cost: Effect.Effect<number>,
  onRecord: (r: SimpleIterationRecord, outcome: Outcome) => Effect.Effect<void>,
  prior: {
    readonly records: ReadonlyArray<SimpleIterationRecord>
    readonly inProgress?: Effect.Effect<Outcome> | undefined
    /** The plan of the last finished iteration, as its record's change summary describes the next one against it. */
    readonly previousPlan?: string | undefined
    /** The last finished iteration ended the iterations (it passed, or the budget ran out). */
    readonly done?: boolean | undefined
  } = { records: [] }
) =>
  Effect.gen(function*() {
    const iterations: Array<SimpleIteration> = []
    const records = [...prior.records]
    let pass = firstPass
    let previous = prior.previousPlan
    for (let i = records.length + 1; i <= n && !prior.done; i++) {
      const t0 = yield* Clock.currentTimeMillis
      const c0 = yield* cost
      const outcome = yield* (i === prior.records.length + 1 && prior.inProgress ? prior.inProgress : attempt(pass))
      const record = iterationRecord(i, outcome, previous, (yield* Clock.currentTimeMillis) - t0, (yield* cost) - c0)
      yield* onRecord(record, outcome)
      iterations.push({ outcome, record })
      records.push(record)
      previous = outcome.state.plan.steps.map((s) => s.description).join("; ")
      pass = outcome.nextPass
      if (endsIterations(record, outcome.stop, records.at(-2))) break
    }
    return { iterations, records, nextPass: pass }
  })
