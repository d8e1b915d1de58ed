import { Effect } from "effect"
import * as AdaptiveDepth from "../adaptive/AdaptiveDepth.js"
import { BudgetExhaustedError } from "../domain/Errors.js"
import type { RunEventBody } from "../domain/RunEvent.js"
import { passesGiven } from "../record/RunRecord.js"
import { readySteps } from "./PassSteps.js"
import type { RunContext } from "./RunContext.js"
import { currentState as state } from "./RunState.js"

/**
 * The boundary between two passes and the TTL it counts: the pass's end (the profile's revision, PassFinished), and
 * an interactive run's request for more passes where the TTL leaves none.
 */

/**
 * A pass ends: `before` (its profile revision), then PassFinished with the time the plan has left, stored in one
 * commit — a pass is finished with its revision or not at all, so a run resumed after a crash revises it once.
 */
export const passFinished = (ctx: RunContext, passNumber: number, before: ReadonlyArray<RunEventBody> = []) =>
  ctx.events.emitAll(before, (record) => ({
    _tag: "PassFinished",
    passNumber,
    ttlRemaining: record.attempt?.ttlRemaining ?? 0
  }))
/** The pass did not converge and was the last its TTL allowed: true when a person gave more passes. */
export const morePasses = (ctx: RunContext, passNumber: number) =>
  Effect.suspend(() => {
    const passes = passNumber - (ctx.events.record().attempt?.firstPass ?? 0)
    const refusal = new BudgetExhaustedError({
      dimension: "ttl",
      message: `pass ${passNumber} did not converge and was the last of the ${passes} its TTL allowed`
    })
    return ctx.guard.moreBudget(refusal, { passNumber, passes })
  })

/** The end of a pass that goes on to the next: (multi-pass) the profile's revision, then PassFinished. */
export const endPass = (ctx: RunContext, passNumber: number) =>
  Effect.flatMap(
    ctx.singlePass ? Effect.succeed([]) : reviseProfile(ctx, passNumber),
    (revision) => passFinished(ctx, passNumber, revision)
  )

/** Pass boundary: the profile may change (up or down); the TTL follows within the budget's cap. Its events. */
const reviseProfile = (ctx: RunContext, passNumber: number) =>
  Effect.gen(function*() {
    const st = yield* state(ctx)
    const events: Array<RunEventBody> = []
    if (!st.profiled || st.ttlRemaining <= 0 || readySteps(st.plan).length === 0) return events
    const revised = yield* AdaptiveDepth.revise(
      ctx.request,
      st.profiled,
      {
        passNumber,
        validationIssueCount: st.report?.issues.length ?? 0,
        convergenceFailures: st.assessment?.failedCriteria ?? [],
        refinementsNeeded: st.ledger.total
      },
      ctx.budget.ttl,
      ctx.llm
    )
    const used = st.profiled.depth.allocatedTtl - st.ttlRemaining
    if (revised.changed) {
      events.push({
        _tag: "ProfileInferred",
        passNumber,
        profile: revised.profile,
        depth: revised.depth,
        previousVersion: st.profiled.profile.profileVersion,
        // passes a person gave are theirs: a revision of the depth does not take them back
        ...(passesGiven(ctx.events.record()) > 0
          ? {}
          : { ttlRemaining: Math.max(0, Math.min(ctx.budget.ttl, revised.depth.allocatedTtl) - used) })
      })
    }
    for (const advisory of revised.advisories) events.push({ _tag: "AdvisoryRaised", passNumber, advisory })
    return events
  })
