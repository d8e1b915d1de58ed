/** What a run asks a person, as the API shows it: its open approvals, its plan waiting with its forecast, its asks. */
import {
  pendingApprovals,
  pendingBudgetExtensions,
  pendingGuidance,
  pendingPlanApprovals,
  type RunRecord
} from "../../record/RunRecord.js"
import type * as G from "./generated/graphql.js"
import { forecastView, iso, planView, reportView } from "./GraphQLViews.js"

/** The run's open approval requests, oldest first. */
export const pendingApprovalsView = (record: RunRecord): Array<G.ApprovalRequest> =>
  pendingApprovals(record).map((r) => ({
    requestId: r.requestId,
    stepId: r.stepId,
    tool: r.tool,
    input: r.input ?? null,
    description: r.description,
    requestedAt: iso(r.at),
    expiresAt: r.expiresAt !== undefined ? iso(r.expiresAt) : null,
    reason: r.reason ?? null,
    untrustedSources: r.untrustedSources ? [...r.untrustedSources] : null
  }))

/** The run's validated plan waiting for approval, if one waits. */
export const pendingPlanApprovalView = (record: RunRecord): G.PlanApprovalRequest | null => {
  const r = pendingPlanApprovals(record)[0]
  return r
    ? {
      requestId: r.requestId,
      plan: planView(r.plan),
      validationReport: r.report ? reportView(r.report) : null,
      forecast: forecastView(r.forecast),
      requestedAt: iso(r.at),
      expiresAt: r.expiresAt !== undefined ? iso(r.expiresAt) : null
    }
    : null
}

/** Where the run waits for more budget, oldest first. */
export const pendingBudgetExtensionsView = (record: RunRecord): Array<G.BudgetExtensionRequest> =>
  pendingBudgetExtensions(record).map((r) => ({
    requestId: r.requestId,
    dimension: r.dimension,
    limit: r.limit,
    used: r.used,
    needs: r.needs,
    proposed: r.proposed,
    forecast: r.forecast ? forecastView(r.forecast) : null,
    requestedAt: iso(r.at),
    expiresAt: r.expiresAt !== undefined ? iso(r.expiresAt) : null
  }))

/** The run's open requests for guidance, oldest first. */
export const pendingGuidanceView = (record: RunRecord): Array<G.GuidanceRequest> =>
  pendingGuidance(record).map((g) => ({
    requestId: g.requestId,
    stepId: g.stepId,
    reason: g.reason,
    requestedAt: iso(g.at),
    expiresAt: g.expiresAt !== undefined ? iso(g.expiresAt) : null
  }))
