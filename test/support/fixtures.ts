import type { PlanStep } from "../../src/domain/Plan.js"

export const step = (id: string, index: number, total: number, extra: Partial<PlanStep> = {}): PlanStep => ({
  stepId: id,
  stepIndex: index,
  totalSteps: total,
  description: `Compute part ${index} of the result`,
  dependencies: [],
  provides: [],
  incomingContext: "",
  handoffToNext: "",
  stepOutput: "",
  status: "pending",
  ...extra
})

export const plan = (n: number) => ({
  goal: "Compute a result",
  steps: Array.from({ length: n }, (_, i) => step(`s${i + 1}`, i + 1, n, { dependencies: i === 0 ? [] : [`s${i}`] }))
})
