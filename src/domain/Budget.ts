import { Schema } from "effect"

const Positive = (name: string) =>
  Schema.Number.pipe(
    Schema.filter((n) => n > 0 || `${name} must be greater than 0 (was ${n})`, { jsonSchema: { exclusiveMinimum: 0 } })
  )
const PositiveInt = (name: string) =>
  Schema.Number.pipe(
    Schema.int(),
    Schema.filter((n) => n > 0 || `${name} must be a positive integer (was ${n})`, { jsonSchema: { minimum: 1 } })
  )

export const DEFAULT_BUDGET = {
  ttl: 5,
  deadlineMs: 5 * 60_000,
  maxCostUsd: 1,
  maxTokens: 200_000,
  maxLlmCalls: 200,
  maxSteps: 200
} as const

/** A cap of the budget: named as its field (its refusals say the name), described, with its default. */
const cap = (name: keyof typeof DEFAULT_BUDGET, kind: typeof Positive, description: string) =>
  Schema.optionalWith(kind(name).annotations({ description }), { default: (): number => DEFAULT_BUDGET[name] })

/** One budget per run. ttl counts cycles (passes); the others may run out mid-phase. */
export const Budget = Schema.Struct({
  ttl: cap("ttl", PositiveInt, "most refinement passes"),
  deadlineMs: cap("deadlineMs", PositiveInt, "the run's wall-clock budget (milliseconds)"),
  maxCostUsd: cap("maxCostUsd", Positive, "most the run may spend on model calls, in US dollars"),
  maxTokens: cap("maxTokens", PositiveInt, "most input + output tokens over all model calls"),
  maxLlmCalls: cap("maxLlmCalls", PositiveInt, "most requests sent to the model, retries included"),
  maxSteps: cap("maxSteps", PositiveInt, "most plan steps executed")
})
export type Budget = typeof Budget.Type
export type BudgetInput = typeof Budget.Encoded

/** The caps a person can raise while a run waits (a budget extension): each one higher than the run's cap now. */
export const BudgetCaps = Schema.Struct({
  /** The passes the run may make in all (a pass the TTL would not allow is asked for at the end of the last one). */
  ttl: Schema.optional(PositiveInt("ttl")),
  maxCostUsd: Schema.optional(Positive("maxCostUsd")),
  maxTokens: Schema.optional(PositiveInt("maxTokens")),
  maxLlmCalls: Schema.optional(PositiveInt("maxLlmCalls")),
  maxSteps: Schema.optional(PositiveInt("maxSteps"))
})
export type BudgetCaps = typeof BudgetCaps.Type

/** Which budget ran out; `quota`: the user's quota across runs (AEON_QUOTAS). */
export const BudgetDimension = Schema.Literal("ttl", "deadline", "cost", "tokens", "llmCalls", "steps", "quota")
export type BudgetDimension = typeof BudgetDimension.Type

export const Usage = Schema.Struct({
  inputTokens: Schema.Int,
  outputTokens: Schema.Int,
  /** Of the input tokens, those the provider read from its prompt cache (absent: none). */
  cachedTokens: Schema.optional(Schema.Int),
  costUsd: Schema.Number,
  llmCalls: Schema.Int,
  steps: Schema.Int,
  /**
   * Of the calls counted above, those answered from recordings (a fork, a replay): counted like the others (a fork
   * meets its budgets as its source did), but not sent and not paid: `costUsd` here is what they would have cost.
   */
  replayed: Schema.optional(Schema.Struct({ llmCalls: Schema.Int, costUsd: Schema.Number })),
  /**
   * Of the calls counted above, those whose tokens the provider did not report (missing, 0, not a number): counted
   * by Aeon from the whole request and the answer, on the high side (absent: none).
   */
  estimatedCalls: Schema.optional(Schema.Int)
})
export type Usage = typeof Usage.Type
export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0, costUsd: 0, llmCalls: 0, steps: 0 }

/**
 * A cost in USD at the precision providers bill at (their prices per million tokens have at most 4 decimals: a
 * token costs a multiple of 1e-10 USD): sums of such costs lose the float noise (0.0005696999999999999 → 0.0005697).
 */
export const roundUsd = (usd: number): number => Math.round(usd * 1e10) / 1e10

/** Usage with a child run's (an agent called as a tool): its calls, tokens, cost and steps count in the parent's. */
export const addChild = (u: Usage, child: Usage): Usage => ({
  ...u,
  inputTokens: u.inputTokens + child.inputTokens,
  outputTokens: u.outputTokens + child.outputTokens,
  costUsd: roundUsd(u.costUsd + child.costUsd),
  llmCalls: u.llmCalls + child.llmCalls,
  steps: u.steps + child.steps
})

/** Usage after one model call (the budget guard while the run goes, the run's record from its LlmCalled events). */
export const addCall = (
  u: Usage,
  call: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly costUsd: number
    readonly cachedTokens?: number | undefined
    /** Requests the call sent (retries included): each counts as a call. */
    readonly requests?: number | undefined
    readonly replayed?: boolean | undefined
    /** Its tokens were estimated: the provider reported none. */
    readonly estimated?: boolean | undefined
  }
): Usage => ({
  ...u,
  ...(call.estimated ? { estimatedCalls: (u.estimatedCalls ?? 0) + 1 } : {}),
  ...(call.replayed ?
    {
      replayed: {
        llmCalls: (u.replayed?.llmCalls ?? 0) + (call.requests ?? 1),
        costUsd: roundUsd((u.replayed?.costUsd ?? 0) + call.costUsd)
      }
    } :
    {}),
  ...(call.cachedTokens ? { cachedTokens: (u.cachedTokens ?? 0) + call.cachedTokens } : {}),
  inputTokens: u.inputTokens + call.inputTokens,
  outputTokens: u.outputTokens + call.outputTokens,
  costUsd: roundUsd(u.costUsd + call.costUsd),
  llmCalls: u.llmCalls + (call.requests ?? 1)
})

/** Usage after one more step started. */
export const addStep = (u: Usage): Usage => ({ ...u, steps: u.steps + 1 })
