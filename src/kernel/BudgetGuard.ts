import { Effect } from "effect"
import type { Budget, Usage } from "../domain/Budget.js"
import { BudgetExhaustedError } from "../domain/Errors.js"
import type { CallEstimate } from "../llm/LanguageModel.js"

/**
 * One run's budget: a call or step that could cross a cap is refused before it is made. The usage it checks is the
 * run's record's (the fold of its LlmCalled and StepStarted events): the guard keeps no count of its own. Calls under
 * way (a layer's steps run at once) hold what they could use from their admission to their record: another call is
 * admitted only beside what they hold, so the calls made at once never cross a cap together.
 */
export interface BudgetGuard {
  /** The budget now: the run's own, with the caps a person raised since (budget extensions). */
  readonly budget: Budget
  readonly usage: Effect.Effect<Usage>
  /** Admits a call beside the calls under way; with a hold, the call holds its estimate until `release`. */
  readonly admitCall: (estimate: CallEstimate, hold?: CallHold) => Effect.Effect<void, BudgetExhaustedError>
  /** A new hold for one model call (empty until admitted). */
  readonly hold: () => CallHold
  /** The call's usage is recorded (or it ended without): what it held is let go. */
  readonly release: (hold: CallHold) => void
  /** The requests a held call may send in all, retries included: what is left beside the other calls under way. */
  readonly requestsLeft: (hold: CallHold) => number
  /** What is left beside the other calls under way (the hold's own call not counted). */
  readonly remainingBeside: (hold: CallHold) => Effect.Effect<Remaining>
  /**
   * The refusal of one more step by the usage given (the record's as the step would start), if it is refused: the
   * Executor decides it and emits StepStarted in one synchronous step (RunJournal.emitWhen), so no other step is
   * admitted in between.
   */
  readonly stepRefusal: (usage: Usage) => BudgetExhaustedError | undefined
  /** What is left of each dimension (for escalation and results). */
  readonly remaining: Effect.Effect<Remaining>
  /** Fails when the recorded usage is past a cap (a provider reported more than was admitted). */
  readonly overrun: Effect.Effect<void, BudgetExhaustedError>
  /**
   * Asked when a call or a step was refused, or a pass that did not converge was the last its TTL allowed (`spent`):
   * true once a person raised the budget (the work is admitted again, the passes given), false when the run stops as
   * without (not an interactive run, a rejection, no answer in time).
   */
  readonly moreBudget: (refusal: BudgetExhaustedError, spent?: PassesSpent) => Effect.Effect<boolean>
  /** The run's user's quota across runs and servers, when quotas are set (AEON_QUOTAS). */
  readonly quota?: QuotaGate | undefined
}

/**
 * The TTL ran out at the end of a pass that did not converge: the passes it allowed (made and evaluated), and the one
 * request of that pass (a restart finds it, answered or not: the passes given then still count).
 */
export interface PassesSpent {
  readonly passNumber: number
  readonly passes: number
}

/**
 * A user's quota as a run meets it (store/QuotaLedger): each call's most it could cost is reserved in the shared
 * ledger before the call is made — refused, as a budget refuses, when it does not fit what is left — and settled to
 * what the call really used once it is recorded.
 */
export interface QuotaGate {
  readonly reserve: (estimate: CallEstimate) => Effect.Effect<Reserved, BudgetExhaustedError>
  readonly settle: (reserved: ReadonlyArray<Reserved>, used: Reserved) => Effect.Effect<void>
  /** Why figures this large do not fit what is left of the quota now, if they do not. */
  readonly refusal: (needs: Reserved) => Effect.Effect<string | undefined>
}

export interface Reserved {
  readonly costUsd: number
  readonly tokens: number
  /** The ledger's rows it was taken from (its windows), for the settlement. */
  readonly windows?: ReadonlyArray<string> | undefined
}

/** A model call between its admission and its record: what it could use, and the requests it has sent. */
export interface CallHold {
  estimate: CallEstimate | undefined
  requests: number
}

// a type, not an interface: it is recorded as a plain record of numbers (an escalation's remaining budget)
export type Remaining = {
  readonly deadlineMs: number
  readonly costUsd: number
  readonly tokens: number
  readonly llmCalls: number
  readonly steps: number
}

const exhausted = (dimension: BudgetExhaustedError["dimension"], message: string) =>
  new BudgetExhaustedError({ dimension, message })
const refuse = (dimension: BudgetExhaustedError["dimension"], message: string) =>
  Effect.fail(exhausted(dimension, message))

export interface GuardOptions {
  /** How long the deadline has stood still by `now` (a run that pauses it while it waits for a person). */
  readonly pausedMs?: ((now: number) => number) | undefined
  /** The budget now, when a person can raise it (the run's record's); the run's own budget otherwise. */
  readonly raised?: (() => Budget) | undefined
  /** Asks a person for more budget (an interactive run); without it, a refusal stops the run. */
  readonly moreBudget?: ((refusal: BudgetExhaustedError, spent?: PassesSpent) => Effect.Effect<boolean>) | undefined
  readonly quota?: QuotaGate | undefined
}

/** `usage()`: the run's usage now (its record's); the deadline moves on by the time it stood still. */
export const make = (
  own: Budget,
  startedAt: number,
  usage: () => Usage,
  options: GuardOptions = {}
): BudgetGuard => {
  const current = options.raised ?? (() => own)
  const pausedMs = options.pausedMs ?? (() => 0)
  const held = new Set<CallHold>()
  const beside = (hold?: CallHold) => () => withHeld(usage(), held, hold)
  return {
    get budget() {
      return current()
    },
    usage: Effect.sync(usage),
    admitCall: (e, hold) =>
      Effect.suspend(() => {
        const refused = refusal(current(), beside(hold)(), e)
        if (refused || !hold) return refused ?? Effect.void
        hold.estimate = e
        held.add(hold)
        return Effect.void
      }),
    hold: () => ({ estimate: undefined, requests: 0 }),
    release: (hold) => {
      held.delete(hold)
      hold.estimate = undefined
      hold.requests = 0
    },
    requestsLeft: (hold) => current().maxLlmCalls - beside(hold)().llmCalls,
    remainingBeside: (hold) => remainingOf(current, startedAt, beside(hold), pausedMs),
    stepRefusal: (u) => {
      const budget = current()
      return u.steps + 1 > budget.maxSteps ? exhausted("steps", `step limit ${budget.maxSteps} reached`) : undefined
    },
    remaining: remainingOf(current, startedAt, beside(), pausedMs),
    overrun: Effect.suspend(() => overrunOf(current(), usage()) ?? Effect.void),
    moreBudget: options.moreBudget ?? (() => Effect.succeed(false)),
    quota: options.quota
  }
}

const remainingOf = (
  current: () => Budget,
  startedAt: number,
  usage: () => Usage,
  pausedMs: (now: number) => number
): Effect.Effect<Remaining> =>
  Effect.clockWith((clock) =>
    Effect.sync(() => {
      const now = clock.unsafeCurrentTimeMillis()
      const budget = current()
      const u = usage()
      return {
        deadlineMs: Math.max(0, startedAt + budget.deadlineMs + pausedMs(now) - now),
        costUsd: Math.max(0, budget.maxCostUsd - u.costUsd),
        tokens: Math.max(0, budget.maxTokens - u.inputTokens - u.outputTokens),
        llmCalls: Math.max(0, budget.maxLlmCalls - u.llmCalls),
        steps: Math.max(0, budget.maxSteps - u.steps)
      }
    })
  )

/** The usage with what the calls under way hold (a call its requests, at least one), but `except`'s. */
const withHeld = (u: Usage, held: ReadonlySet<CallHold>, except: CallHold | undefined): Usage => {
  let { costUsd, inputTokens, llmCalls, outputTokens } = u
  for (const h of held) {
    if (h === except || !h.estimate) continue
    llmCalls += Math.max(1, h.requests)
    inputTokens += h.estimate.inputTokens
    outputTokens += h.estimate.maxOutputTokens
    costUsd += h.estimate.maxCostUsd
  }
  return { ...u, costUsd, inputTokens, llmCalls, outputTokens }
}

/** The refusal of a call that could cross a cap, if it could. */
const refusal = (budget: Budget, u: Usage, e: CallEstimate) => {
  if (u.llmCalls + 1 > budget.maxLlmCalls) {
    return refuse("llmCalls", `LLM call limit ${budget.maxLlmCalls} reached`)
  }
  const tokens = u.inputTokens + u.outputTokens + e.inputTokens + e.maxOutputTokens
  if (tokens > budget.maxTokens) {
    return refuse(
      "tokens",
      `${e.promptId} could use ${e.inputTokens}+${e.maxOutputTokens} tokens; ${
        budget.maxTokens - u.inputTokens - u.outputTokens
      } left of ${budget.maxTokens}`
    )
  }
  if (u.costUsd + e.maxCostUsd > budget.maxCostUsd) {
    return refuse(
      "cost",
      `${e.promptId} could cost $${e.maxCostUsd.toFixed(6)}; $${
        (budget.maxCostUsd - u.costUsd).toFixed(6)
      } left of $${budget.maxCostUsd}`
    )
  }
  return undefined
}

/** The failure of usage recorded past a cap (a provider reported more than was admitted), if it is. */
const overrunOf = (budget: Budget, u: Usage) => {
  const tokens = u.inputTokens + u.outputTokens
  if (tokens > budget.maxTokens) {
    return refuse(
      "tokens",
      `the provider reported ${tokens} tokens in all, ${tokens - budget.maxTokens} over the cap of ${budget.maxTokens}`
    )
  }
  if (u.costUsd > budget.maxCostUsd) {
    return refuse("cost", `usage reached $${u.costUsd.toFixed(6)}, over the cap of $${budget.maxCostUsd}`)
  }
  return undefined
}
