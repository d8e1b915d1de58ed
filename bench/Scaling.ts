import { overhead } from "./Overhead.js"

/** Overhead per step as plans grow: one pass, instant model, no store. Linear growth keeps ms/step flat. */
export const scaling = async (sizes: ReadonlyArray<number> = [10, 100, 1000]) => {
  const rows = []
  for (const steps of sizes) {
    const r = await overhead({ store: false, steps, passes: 1, iterations: steps >= 1000 ? 3 : 10 })
    rows.push({ steps: r.steps, wallMs: r.wallMs, perStepMs: r.perStepMs })
  }
  // marginal cost of one more step, from the largest and smallest plans
  const first = rows[0]!
  const last = rows[rows.length - 1]!
  return { rows, marginalPerStepMs: (last.wallMs - first.wallMs) / (last.steps - first.steps) }
}
