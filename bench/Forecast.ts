import { Effect } from "effect"
import { prepare } from "../src/run/Run.js"
import { forecastScenarios, priced } from "../test/support/forecastScenarios.js"

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!
}

/**
 * Row 17: the cost forecast against what each run spent, over the scripted scenarios and the offline eval set
 * (test/support/forecastScenarios): relative error (actual − expected) / actual per run, its median and p90 in
 * absolute value, how many runs the worst case held, and how loose the worst case is (worst / actual).
 */
export const forecastError = async () => {
  const runs: Array<{
    name: string
    actualUsd: number
    expectedUsd: number
    worstUsd: number
    costError: number
    callsError: number
    withinWorstCase: boolean
  }> = []
  for (const s of forecastScenarios) {
    const result = await Effect.runPromise(
      Effect.flatMap(prepare({ task: "Compute 6 * 7 and explain it", mode: "FULL", ...s.input }), (p) => p.execute)
        .pipe(Effect.provide(priced(s.script)))
    )
    const f = result.forecast!
    runs.push({
      name: s.name,
      actualUsd: result.usage.costUsd,
      expectedUsd: f.expected.costUsd,
      worstUsd: f.worstCase.costUsd,
      costError: result.forecastError!.costUsd!,
      callsError: result.forecastError!.llmCalls!,
      withinWorstCase: result.forecastError!.withinWorstCase
    })
  }
  const abs = (k: "costError" | "callsError") => runs.map((r) => Math.abs(r[k]))
  return {
    runs,
    costMedian: quantile(abs("costError"), 0.5),
    costP90: quantile(abs("costError"), 0.9),
    callsMedian: quantile(abs("callsError"), 0.5),
    callsP90: quantile(abs("callsError"), 0.9),
    within: runs.filter((r) => r.withinWorstCase).length,
    loosenessMedian: quantile(runs.map((r) => r.worstUsd / r.actualUsd), 0.5)
  }
}
