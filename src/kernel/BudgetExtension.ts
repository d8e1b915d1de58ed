import { Effect } from "effect"
import type { Budget, Usage } from "../domain/Budget.js"
import type { BudgetExhaustedError } from "../domain/Errors.js"
import type { Forecast } from "../domain/Forecast.js"
import { CAP_OF, passesRequestId } from "../record/Requests.js"
import type { AskedEvent, RunRecord } from "../record/RunRecord.js"
import { type Asker, askOnce, expiresAt, rejectedAfter } from "./Approval.js"
import type { PassesSpent } from "./BudgetGuard.js"

type Requested = Extract<AskedEvent, { _tag: "BudgetExtensionRequested" }>
type Dimension = Requested["dimension"]

const extensible = (d: BudgetExhaustedError["dimension"]): d is Dimension =>
  d === "llmCalls" || d === "tokens" || d === "cost" || d === "steps" || d === "ttl"

const usedOf = (usage: Usage, d: Dimension) =>
  d === "llmCalls"
    ? usage.llmCalls
    : d === "tokens"
    ? usage.inputTokens + usage.outputTokens
    : d === "cost"
    ? usage.costUsd
    : usage.steps

/** A new request for more of a cap, its id, what it is used of it and its limit. */
const requestOf = (
  r: RunRecord,
  dimension: Dimension,
  limits: { readonly budget: Budget; readonly usage: Usage; readonly spent?: PassesSpent | undefined }
) => {
  if (dimension === "ttl" && limits.spent) {
    const { passNumber, passes } = limits.spent
    return { requestId: passesRequestId(passNumber), limit: passes, used: passes }
  }
  const asked = [...r.requests.values()].filter((q) => q.request._tag === "BudgetExtensionRequested").length
  return {
    requestId: `budget-${dimension}-${asked + 1}`,
    limit: limits.budget[CAP_OF[dimension]],
    used: usedOf(limits.usage, dimension)
  }
}

/** A person said no to more of this cap already (or did not answer in time): the run stops as it would without. */
const refusedBefore = (asker: Asker, dimension: Dimension) =>
  [...asker.events.record().requests.values()].some((q) =>
    q.request._tag === "BudgetExtensionRequested" && q.request.dimension === dimension &&
    q.answer?._tag === "ApprovalAnswered" && q.answer.decision === "REJECT"
  )

/**
 * An interactive run's answer to a refusal of the budget guard (a call, a step): it asks for more — a
 * BudgetExtensionRequested naming the cap, what is used of it, what the refused work needs, the caps APPROVE gives
 * (that cap doubled) and the forecast of what is left — and waits. True once a person raised the cap (the budget is
 * the run's record's: the work is admitted again), false on a rejection or no answer in time (the run stops at its
 * budget as without asking, and is not asked about that cap again: its answer is made within what is left). A
 * resumed run finds its open request again; refusals of one cap at once share one.
 * At the end of a pass the TTL did not leave another (`spent`), the request is for more passes (`ttl`: the passes in
 * all); APPROVE gives those beyond the ones made. The deadline is not extended this way.
 */
export const askBudgetExtension = (
  asker: Asker,
  budget: () => Budget,
  usage: () => Usage,
  forecast: Effect.Effect<Forecast | undefined>,
  refusal: BudgetExhaustedError,
  spent?: PassesSpent
): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const dimension = refusal.dimension
    if (!extensible(dimension) || refusedBefore(asker, dimension)) return false
    const left = yield* forecast
    const answer = yield* askOnce<Requested>(
      asker,
      (r) =>
        (spent && dimension === "ttl"
          ? r.requests.get(passesRequestId(spent.passNumber))?.request
          : [...r.requests.values()].find((q) =>
            !q.answer && q.request._tag === "BudgetExtensionRequested" && q.request.dimension === dimension
          )?.request) as Requested | undefined,
      (r, now) => {
        const { limit, requestId, used } = requestOf(r, dimension, { budget: budget(), usage: usage(), spent })
        return {
          _tag: "BudgetExtensionRequested",
          requestId,
          dimension,
          limit,
          used,
          needs: refusal.message,
          proposed: { [CAP_OF[dimension]]: dimension === "cost" ? 2 * limit : Math.ceil(2 * limit) },
          ...(left ? { forecast: left } : {}),
          ...expiresAt(asker, now)
        }
      },
      rejectedAfter(asker)
    )
    return answer._tag === "ApprovalAnswered" && answer.decision !== "REJECT"
  })
