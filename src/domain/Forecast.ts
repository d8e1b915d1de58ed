import { Schema } from "effect"

/** What a run (or a step of it) is expected to spend: model calls, tokens, cost, wall time. */
export const ForecastFigures = Schema.Struct({
  llmCalls: Schema.Number,
  tokens: Schema.Number,
  costUsd: Schema.Number,
  wallMs: Schema.Number
})
export type ForecastFigures = typeof ForecastFigures.Type

/**
 * A run's forecast, made from its validated plan before execution (planning/Forecast): what it expects to spend and
 * the most it can spend (never above what its budget lets it), in total — the planning already spent included — and
 * per step; `basis` says what it rests on (the prompts' sizes and output caps alone, or also `similarRuns` stored runs).
 */
export const Forecast = Schema.Struct({
  expected: ForecastFigures,
  worstCase: ForecastFigures,
  perStep: Schema.Array(Schema.Struct({
    stepId: Schema.String,
    expected: ForecastFigures,
    worstCase: ForecastFigures
  })),
  /** Execution passes expected and at most. */
  passes: Schema.Struct({ expected: Schema.Number, worstCase: Schema.Number }),
  /** Spent by the planning, before the forecast (included in the totals). */
  spent: ForecastFigures,
  basis: Schema.String,
  similarRuns: Schema.Int
})
export type Forecast = typeof Forecast.Type
