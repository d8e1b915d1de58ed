import { Effect, Ref } from "effect"
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
  Effect.gen(function*() {
    const usage = yield* Ref.make(initial)
    const admitCall = (e: CallEstimate) =>
      Ref.get(usage).pipe(
        Effect.flatMap((u) => {
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
          return Effect.void
        })
      )
    const recordCall = (c: CallUsage) => Ref.update(usage, (u) => addCall(u, c))
    const admitStep = Ref.modify(usage, (u) =>
      u.steps + 1 > budget.maxSteps ? [false, u] as const : [true, addStep(u)] as const).pipe(
        Effect.flatMap((ok) => (ok ? Effect.void : refuse("steps", `step limit ${budget.maxSteps} reached`)))
      )
    const remaining = Effect.gen(function*() {
      const u = yield* Ref.get(usage)
      const now = yield* Effect.clockWith((c) =>
        c.currentTimeMillis
      )
      return {
        deadlineMs: Math.max(0, startedAt + budget.deadlineMs + pausedMs(now) - now),
        costUsd: Math.max(0, budget.maxCostUsd - u.costUsd),
        tokens: Math.max(0, budget.maxTokens - u.inputTokens - u.outputTokens),
        llmCalls: Math.max(0, budget.maxLlmCalls - u.llmCalls),
        steps: Math.max(0, budget.maxSteps - u.steps)
      }
    })
    const overrun = Effect.flatMap(Ref.get(usage), (u) => {
      const tokens = u.inputTokens + u.outputTokens
      if (tokens > budget.maxTokens) {
        return refuse(
          "tokens",
          `the provider reported ${tokens} tokens in all, ${
            tokens - budget.maxTokens
          } over the cap of ${budget.maxTokens}`
        )
      }
      if (u.costUsd > budget.maxCostUsd) {
        return refuse("cost", `usage reached $${u.costUsd.toFixed(6)}, over the cap of $${budget.maxCostUsd}`)
      }
      return Effect.void
    })
    return { budget, usage: Ref.get(usage), admitCall, recordCall, admitStep, remaining, overrun } satisfies BudgetGuard
  })
