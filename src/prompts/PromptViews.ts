import type { PlanStep } from "../domain/Plan.js"
import type { PlanView } from "./Schemas.js"

/** The plan as prompts show it: no empty context fields, outputs only once produced. */
export const promptPlan = (
  plan: {
    readonly goal: string
    readonly steps: ReadonlyArray<
      Partial<PlanStep> & Pick<PlanStep, "stepId" | "stepIndex" | "description" | "dependencies">
    >
  }
): PlanView => ({
  goal: plan.goal,
  steps: plan.steps.map((s) => ({
    stepId: s.stepId,
    stepIndex: s.stepIndex,
    description: s.description,
    ...(s.tool ? { tool: s.tool, toolInput: s.toolInput } : {}),
    dependencies: s.dependencies,
    status: s.status ?? "pending",
    ...(s.stepOutput ? { stepOutput: s.stepOutput } : {}),
    ...(s.clarityState ? { clarityState: s.clarityState } : {})
  }))
})
