import { Effect, Either } from "effect"
import type { Plan } from "../domain/Plan.js"
import type { RunEventBody } from "../domain/RunEvent.js"
import { editPlan } from "../planning/PlanEdit.js"
import { askPlanApproval } from "./Approval.js"
import type { RunContext } from "./RunContext.js"
import { planNow, ttlRemainingNow } from "./RunState.js"
import type { Stop } from "./Stop.js"

/** The forecast of the validated plan, made once per attempt (a resumed run finds it in its record). */
const forecastOnce = (ctx: RunContext, planPass: number) =>
  Effect.gen(function*() {
    const made = ctx.events.record().forecast
    if (made && made.passNumber === planPass) return made.forecast
    const forecast = yield* ctx.forecast(planNow(ctx), ctx.singlePass ? 1 : ttlRemainingNow(ctx), {
      singlePass: ctx.singlePass === true
    })
    yield* ctx.events.emitWhen((r) =>
      r.forecast?.passNumber === planPass
        ? Either.left(undefined)
        : Either.right<RunEventBody>({ _tag: "ForecastMade", passNumber: planPass, forecast })
    ).pipe(Effect.ignore)
    return forecast
  })

/** A person's plan edits, applied once (validated when they were given: PlanEdit, as the planner's refinements). */
const applyEdits = (
  ctx: RunContext,
  planPass: number,
  requestId: string,
  plan: Plan,
  edits: ReadonlyArray<unknown>
) => {
  const edited = editPlan(plan, edits, ctx.toolInfos)
  if (Either.isLeft(edited)) return Effect.void
  return ctx.events.emitWhen((r) =>
    r.requests.get(requestId)?.applied ? Either.left(undefined) : Either.right<RunEventBody>({
      _tag: "RefinementApplied",
      passNumber: planPass,
      actions: edited.right.actions,
      plan: edited.right.plan,
      advisories: [`the plan was edited when it was approved (${edited.right.actions.length} edit(s))`],
      // a person's edits do not count against the planner's refinement limits
      ...(r.attempt ? { ledger: r.attempt.ledger } : {}),
      requestId
    })
  ).pipe(Effect.ignore)
}

/**
 * Between planning and the first execution pass: the forecast of the validated plan; a dry run stops there, and so
 * does a run whose forecast does not fit what is left of its user's quota; a run whose plan needs approval waits
 * for it — APPROVE goes on, EDIT goes on with the edited plan, REJECT (or no answer in time) ends the run cancelled.
 * Resumed runs pass it again and find what they had: the same forecast, request and answer.
 */
export const afterPlanning = (ctx: RunContext, planPass: number): Effect.Effect<Stop | undefined> =>
  Effect.gen(function*() {
    const forecast = yield* forecastOnce(ctx, planPass)
    if (ctx.dryRun) return { reason: "dry_run" } satisfies Stop
    // a plan whose expected spending does not fit what is left of its user's quota is not run
    const quotaRefusal = ctx.guard.quota &&
      (yield* ctx.guard.quota.refusal({
        costUsd: Math.max(0, forecast.expected.costUsd - forecast.spent.costUsd),
        tokens: Math.max(0, forecast.expected.tokens - forecast.spent.tokens)
      }))
    if (quotaRefusal) {
      return {
        reason: "budget_exhausted",
        point: "phase_boundary",
        exhausted: "quota",
        error: quotaRefusal
      } satisfies Stop
    }
    if (!ctx.approvePlan) return undefined
    const plan = planNow(ctx)
    const report = ctx.events.record().attempt?.report
    const answer = yield* askPlanApproval(ctx, planPass, { passNumber: planPass, plan, report, forecast })
    if (answer.decision === "REJECT") {
      return {
        reason: "cancelled",
        error: `the plan was rejected: ${answer.reason ?? "no reason given"}`
      } satisfies Stop
    }
    if (answer.decision === "EDIT") {
      yield* applyEdits(ctx, planPass, answer.requestId, plan, Array.isArray(answer.input) ? answer.input : [])
    }
    return undefined
  })
