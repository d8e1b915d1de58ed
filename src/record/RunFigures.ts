import type { Plan } from "../domain/Plan.js"
import type { RunRecord } from "./RunRecord.js"
import { executionPasses, resultOf } from "./RunResult.js"

/**
 * What a finished run used, as the forecast's calibration reads it (run/Forecasting): the shape of the plan it
 * validated before executing (pass 0's), the execution passes it made, its output tokens and model latency per call.
 * Stored with the run when it finishes (the store's `runs.figures`), so that calibration reads one small row per run
 * instead of folding each stored run's events again.
 */
export interface RunFigures {
  readonly mode: string
  readonly steps: number
  /** The tools the plan's steps use, sorted, comma-separated. */
  readonly tools: string
  readonly passes: number
  readonly outputTokensPerCall: number
  readonly latencyMsPerCall: number
}

/** The tools a plan's steps use, as figures compare them. */
export const toolsOf = (plan: Plan) =>
  [...new Set(plan.steps.flatMap((s) => (s.tool ? [s.tool] : [])))].sort().join(",")

/** Ends a run can be learned from: a cancelled run (a dry run, a person's cancel) did not go where its plan led. */
const LEARNED_FROM = new Set(["CONVERGED", "NOT_CONVERGED", "FAILED"])

/** A finished run's figures, from its record; none for a run cancelled, without a planned step, or without a call. */
export const figuresOf = (record: RunRecord): RunFigures | undefined => {
  if (!record.finished || !LEARNED_FROM.has(record.finished.status)) return undefined
  const result = resultOf(record)
  // the plan as it was validated (and approved), before execution: pass 0's
  const first = record.passes.find((p) => p.passNumber === 0)?.plan
  if (!first || first.steps.length === 0 || result.usage.llmCalls === 0) return undefined
  return {
    mode: result.mode,
    steps: first.steps.length,
    tools: toolsOf(first),
    passes: executionPasses(result),
    outputTokensPerCall: result.usage.outputTokens / result.usage.llmCalls,
    latencyMsPerCall: record.thinkingMs / result.usage.llmCalls
  }
}
