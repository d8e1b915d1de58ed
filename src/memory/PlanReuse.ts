import { liveSteps, type Plan, type PlanStep, renumber } from "../domain/Plan.js"

/** How a task matched the earlier run whose plan it may start from. */
export type PlanMatch = "equal" | "similar"

/** An earlier converged run's final plan a task may start from. */
export interface ReusablePlan {
  readonly runId: string
  readonly task: string
  readonly plan: Plan
  readonly match: PlanMatch
}

/** A step as planned, before anything ran: its status, outputs and execution marks cleared. */
const asPlanned = (s: PlanStep, match: PlanMatch): PlanStep => ({
  stepId: s.stepId,
  stepIndex: s.stepIndex,
  totalSteps: s.totalSteps,
  description: s.description,
  ...(s.tool !== undefined ? { tool: s.tool, toolInput: s.toolInput } : {}),
  dependencies: s.dependencies,
  provides: s.provides,
  // a planner's answer holds for the task it was given: a similar task asks again
  ...(s.answer !== undefined && match === "equal" ? { answer: s.answer } : {}),
  incomingContext: "",
  handoffToNext: "",
  stepOutput: "",
  status: "pending"
})

/**
 * The plan an earlier run converged with, as a new run starts from it: its live steps pending and renumbered. None
 * when it cannot be a start: a tool it calls is not available now, a step has a subplan (it was decomposed while it
 * ran), or a step depends on one that was superseded.
 */
export const startingPlan = (
  plan: Plan,
  match: PlanMatch,
  availableTools: ReadonlyArray<string>
): Plan | undefined => {
  const live = liveSteps(plan.steps)
  const ids = new Set(live.map((s) => s.stepId))
  const usable = live.length > 0 &&
    live.every((s) =>
      (s.tool === undefined || availableTools.includes(s.tool)) && s.subplan === undefined &&
      s.dependencies.every((d) => ids.has(d))
    )
  if (!usable) return undefined
  return {
    goal: plan.goal,
    steps: renumber(live.map((s) => asPlanned(s, match))),
    ...(plan.answer !== undefined && match === "equal" ? { answer: plan.answer } : {})
  }
}
