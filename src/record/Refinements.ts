import type { Plan } from "../domain/Plan.js"
import { fragmentRoot } from "./PlanEdits.js"

/** Refinement attempts so far: per fragment (target step) and in total (FR-065, FR-066). */
export interface RefinementLedger {
  readonly perFragment: Readonly<Record<string, number>>
  readonly total: number
}
export const emptyLedger: RefinementLedger = { perFragment: {}, total: 0 }

/**
 * The fragment a refinement action works on: its target step's fragment (the original step, through its successors:
 * PlanEdits.fragmentRoot), the step it adds, or the plan as a whole. Without the plan (events stored before
 * RefinementApplied carried its ledger), the target's own id.
 */
export const fragmentOf = (
  a: { readonly targetStepId?: string | undefined; readonly newStep?: { readonly stepId: string } | undefined },
  plan?: Plan
) => {
  const id = a.targetStepId ?? a.newStep?.stepId ?? "plan"
  return plan && a.targetStepId !== undefined ? fragmentRoot(plan.steps, id) : id
}

/** The ledger after one more attempt on a fragment. */
export const countRefinement = (ledger: RefinementLedger, fragment: string): RefinementLedger => ({
  perFragment: { ...ledger.perFragment, [fragment]: (ledger.perFragment[fragment] ?? 0) + 1 },
  total: ledger.total + 1
})

/** The ledger after these actions (for events stored before RefinementApplied carried the ledger itself). */
export const countRefinements = (ledger: RefinementLedger, actions: ReadonlyArray<Parameters<typeof fragmentOf>[0]>) =>
  actions.reduce((l, a) => countRefinement(l, fragmentOf(a)), ledger)
