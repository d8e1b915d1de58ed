import { Effect } from "effect"
import { addCall, addStep, type Budget, emptyUsage, type Usage } from "../domain/Budget.js"
import { BudgetExhaustedError } from "../domain/Errors.js"
import type { CallEstimate, CallUsage } from "../llm/LanguageModel.js"

/** One run's budget: a call or step that could cross a cap is refused before it is made. */
export interface BudgetGuard {
  readonly budget: Budget
  readonly usage: Effect.Effect<Usage>
  readonly admitCall: (estimate: CallEstimate) => Effect.Effect<void, BudgetExhaustedError>
  readonly recordCall: (usage: CallUsage) => Effect.Effect<void>
  readonly admitStep: Effect.Effect<void, BudgetExhaustedError>
  /** What is left of each dimension (for escalation and results). */
  readonly remaining: Effect.Effect<Remaining>
  /** Fails when the recorded usage is past a cap (a provider reported more than was admitted). */
  readonly overrun: Effect.Effect<void, BudgetExhaustedError>
}

export interface Remaining {
  readonly deadlineMs: number
  readonly costUsd: number
  readonly tokens: number
  readonly llmCalls: number
  readonly steps: number
}

const refuse = (dimension: BudgetExhaustedError["dimension"], message: string) =>
  Effect.fail(new BudgetExhaustedError({ dimension, message }))

/**
 * `pausedMs(now)`: how long the deadline has stood still by `now` (a run that pauses it while it waits for a person);
 * the deadline moves on by that much.
 */
export const make = (
  budget: Budget,
  startedAt: number,
  initial: Usage = emptyUsage,
  pausedMs: (now: number) => number = () => 0
) =>
  Effect.sync(() => {
    // plain state read and written in one synchronous step per check (what a Ref would do, with fewer fiber
    // operations: a model call checks the guard five times); only the run's fibers touch it, one at a time
    let usage = initial
    const admitCall = (e: CallEstimate) => Effect.suspend(() => refusal(budget, usage, e) ?? Effect.void)
    const recordCall = (c: CallUsage) => Effect.sync(() => void (usage = addCall(usage, c)))
    const admitStep = Effect.suspend(() => {
      if (usage.steps + 1 > budget.maxSteps) return refuse("steps", `step limit ${budget.maxSteps} reached`)
      usage = addStep(usage)
      return Effect.void
    })
    const remaining = Effect.clockWith((clock) =>
      Effect.sync(() => {
        const now = clock.unsafeCurrentTimeMillis()
        return {
          deadlineMs: Math.max(0, startedAt + budget.deadlineMs + pausedMs(now) - now),
          costUsd: Math.max(0, budget.maxCostUsd - usage.costUsd),
          tokens: Math.max(0, budget.maxTokens - usage.inputTokens - usage.outputTokens),
          llmCalls: Math.max(0, budget.maxLlmCalls - usage.llmCalls),
          steps: Math.max(0, budget.maxSteps - usage.steps)
        }
      })
    )
    const overrun = Effect.suspend(() => overrunOf(budget, usage) ?? Effect.void)
    return {
      budget,
      usage: Effect.sync(() => usage),
      admitCall,
      recordCall,
      admitStep,
      remaining,
      overrun
    } satisfies BudgetGuard
  })

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
