import { Effect } from "effect"
import type { PromptId } from "../prompts/PromptId.js"
import type { CallUsage } from "./CallUsage.js"
import type { TextSink } from "./Completion.js"
import { type Around, billedBound, type Call, type CallEstimate } from "./LanguageModel.js"
import { ModelTruncatedError } from "./ModelErrors.js"
import { costOf } from "./Pricing.js"

/**
 * What a run wraps around each call of its model (LanguageModel's `wrapped`): admission against its budget, the
 * record of what each call used, the text as it is written. Each is a layer of its own over the model's `send`.
 */

/** A budget the calls are admitted against (a run's BudgetGuard, with what this call holds of it). */
export interface CallBudget<E> {
  /** Fails to refuse the call (it could cross a budget). */
  readonly admit: (estimate: CallEstimate) => Effect.Effect<void, E>
  /** Asked when admission refused the call: true once more budget was given (the call is admitted again). */
  readonly moreBudget?: ((refusal: E) => Effect.Effect<boolean>) | undefined
  /** Tokens left in the budget: the output cap sent to the provider is lowered to fit them. */
  readonly tokensLeft: Effect.Effect<number>
  /** How many requests the call may send, retries included, asked as it goes. */
  readonly requestsLeft: () => number
  /** Told as each request is sent. */
  readonly onRequest: () => void
}

/** The least output cap worth sending when the token budget lowers it. */
const MIN_OUTPUT_TOKENS = 16

/**
 * The output cap the provider gets: the call's, lowered to what is left of the token budget when a useful one still
 * fits. A token covers at least one UTF-8 byte and a UTF-16 unit at most three bytes: 3 × length bounds the input's
 * tokens; counting exactly is only needed when that bound does not fit the budget, or when the provider does not
 * report usage.
 */
const outputCap = <I, O>(call: Call<I, O>, left: number) => {
  const cap = call.maxOutputTokens
  if (billedBound(call) + cap <= left) return cap
  const fits = left - call.billedInputTokens()
  if (call.cutAt !== undefined) return Math.min(cap, fits)
  return fits >= MIN_OUTPUT_TOKENS ? Math.min(cap, fits) : cap
}

/** Admission of a call with this output cap: the budget refuses what it could cross. */
const admitted = <I, O, E>(call: Call<I, O>, cap: number, budget: CallBudget<E>): Effect.Effect<void, E> => {
  const estimate = (tokens: number): CallEstimate => ({
    promptId: call.contract.id,
    inputTokens: tokens,
    maxOutputTokens: cap,
    // a provider that writes its prompt cache may bill the whole input at its cache-write rate
    maxCostUsd: costOf(
      call.model.price,
      tokens,
      cap,
      0,
      (call.model.price.cacheWritePerMillion ?? 0) > call.model.price.inputPerMillion ? tokens : 0
    )
  })
  return budget.admit(estimate(billedBound(call))).pipe(
    Effect.catchAll(() => budget.admit(estimate(call.billedInputTokens())))
  )
}

/** The call's output cap, admitted; refused and given more budget (an interactive run), its cap and admission again. */
const admittedCap = <I, O, E>(call: Call<I, O>, budget: CallBudget<E>): Effect.Effect<number, E> =>
  Effect.flatMap(budget.tokensLeft, (left) => {
    const cap = outputCap(call, left)
    return admitted(call, cap, budget).pipe(
      Effect.as(cap),
      Effect.catchAll((refusal) => {
        const more = budget.moreBudget
        if (!more) return Effect.fail(refusal)
        return Effect.flatMap(more(refusal), (given) => (given ? admittedCap(call, budget) : Effect.fail(refusal)))
      })
    )
  })

/**
 * A call made again after its answer was cut: with a larger cap within what is left of the token budget, admitted
 * as it is (no more budget asked); none larger, or refused, the call stays cut.
 */
const admittedLarger = <I, O, E>(
  call: Call<I, O>,
  cutAt: number,
  budget: CallBudget<E>
): Effect.Effect<number, E | ModelTruncatedError> =>
  Effect.flatMap(budget.tokensLeft, (left) => {
    const cut = new ModelTruncatedError({ promptId: call.contract.id, maxOutputTokens: cutAt })
    const cap = outputCap(call, left)
    if (cap <= cutAt) return Effect.fail(cut)
    return Effect.as(Effect.mapError(admitted(call, cap, budget), () => cut), cap)
  })

/** Each call admitted against `budget` before it is sent, its cap lowered to the tokens left, its requests counted. */
export const admission = <E>(budget: CallBudget<E>): Around<E | ModelTruncatedError> => (send) => (call) => {
  const capped: Effect.Effect<number, E | ModelTruncatedError> = call.cutAt === undefined
    ? admittedCap(call, budget)
    : admittedLarger(call, call.cutAt, budget)
  return Effect.flatMap(capped, (cap) =>
    send({
      ...call,
      maxOutputTokens: cap,
      maxRequests: budget.requestsLeft,
      onRequest: () => {
        budget.onRequest()
        call.onRequest?.()
      }
    }))
}

/**
 * Each call's usage told to `record` — also when its answer then fails to decode or is cut, and when the provider
 * failed (its requests still count, and its exchange when recorded). `record` fails when the usage crossed a budget
 * (the overage recorded first).
 */
export const recording = <E>(record: (usage: CallUsage) => Effect.Effect<void, E>): Around<E> => (send) => (call) =>
  Effect.tap(send(call), (sent) => record(sent.usage))

/** Each call's text, as it is written, to the sink `open` gives it (the run's live output). */
export const liveText = (open: (promptId: PromptId) => Effect.Effect<TextSink>): Around<never> => (send) => (call) =>
  Effect.flatMap(
    open(call.contract.id),
    (sink) => Effect.ensuring(send({ ...call, onText: sink.push }), sink.done)
  )
