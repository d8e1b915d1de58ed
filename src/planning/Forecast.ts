import type { Budget, Usage } from "../domain/Budget.js"
import type { Forecast, ForecastFigures } from "../domain/Forecast.js"
import type { Plan, PlanStep } from "../domain/Plan.js"
import { asksMoreThanTool, needsReview } from "../domain/TextSignals.js"
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../llm/LanguageModel.js"
import { costOf, type ModelPrice } from "../llm/Pricing.js"
import { PromptId } from "../prompts/PromptId.js"
import { templates } from "../prompts/Templates.js"
import { referencesIn } from "../record/References.js"
import { REFINEMENT_LIMITS } from "./RecursivePlanner.js"

/** What stored runs like this one actually used (run/ForecastCalibration): each figure a median over them. */
export interface Calibration {
  readonly runs: number
  readonly executionPasses: number
  readonly outputTokensPerCall: number
  readonly latencyMsPerCall: number
}

export interface ForecastInput {
  readonly request: string
  readonly plan: Plan
  readonly budget: Budget
  /** What the run has spent so far (its planning) and how long it has run. */
  readonly spent: Usage
  readonly elapsedMs: number
  /**
   * The planning's own model calls: their median answer size and latency stand in when no stored run is like this
   * one; those whose prompt was recorded (`promptChars`) give the tokens a character of prompt costs with this model.
   */
  readonly planningCalls: ReadonlyArray<
    {
      readonly outputTokens: number
      readonly latencyMs: number
      readonly inputTokens?: number
      readonly promptChars?: number
    }
  >
  /** Execution passes the run may still make (its TTL after planning); 1 for a single-pass attempt. */
  readonly passesLeft: number
  /** A typed run's output schema, as JSON text: its answer call carries it as its format (and its repair does too). */
  readonly outputSchema?: string | undefined
  readonly price: ModelPrice
  /** A call's price by its prompt, when the model depends on it (a model per phase: llm/ByPhase). */
  readonly priceFor?: ((promptId: string) => ModelPrice) | undefined
  readonly calibration?: Calibration | undefined
  /**
   * The plan runs as a simple iteration (AUTO, SIMPLE): its expected calls are the economy's — a tool step that asks no
   * more than its tool's work and a step the planner answered make none, the checks review a task the text signals
   * call clear, a plan that carries its answer (or is one step needing no tool) needs no synthesis. The worst case
   * stays every call of the loop (a failure asks the model; AUTO may escalate).
   */
  readonly singlePass?: boolean | undefined
}

/**
 * A prompt's tokens from its characters: at the rate the planning's recorded prompts cost with this model (framing
 * and output schema included), else four characters a token plus 200 for the framing and the schema.
 */
const promptSizer = (calls: ForecastInput["planningCalls"]) => {
  const measured = calls.flatMap((c) =>
    c.promptChars !== undefined && c.promptChars > 0 && c.inputTokens !== undefined
      ? [{ chars: c.promptChars, tokens: c.inputTokens }]
      : []
  )
  const chars = measured.reduce((n, c) => n + c.chars, 0)
  const tokens = measured.reduce((n, c) => n + c.tokens, 0)
  return (system: PromptId, user: PromptId, dataChars: number) => {
    const all = templates[system].length + templates[user].length + dataChars
    return chars > 0 ? Math.ceil((all * tokens) / chars) : Math.ceil(all / 4) + 200
  }
}

/** The most one call site can take: a repair or a truncated answer sends it again, with twice the output cap. */
const WORST_REQUESTS_PER_CALL = 2
const WORST_OUTPUT_PER_CALL = 3 * DEFAULT_MAX_OUTPUT_TOKENS

interface CallShape {
  readonly input: number
  readonly output: number
}

const zero: ForecastFigures = { llmCalls: 0, tokens: 0, costUsd: 0, wallMs: 0 }
const add = (a: ForecastFigures, b: ForecastFigures): ForecastFigures => ({
  llmCalls: a.llmCalls + b.llmCalls,
  tokens: a.tokens + b.tokens,
  costUsd: a.costUsd + b.costUsd,
  wallMs: a.wallMs + b.wallMs
})
const times = (a: ForecastFigures, n: number): ForecastFigures => ({
  llmCalls: a.llmCalls * n,
  tokens: a.tokens * n,
  costUsd: a.costUsd * n,
  wallMs: a.wallMs * n
})

/** The middle of the figures (the mean of the two middle ones for an even count); 0 for none. */
export const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const middle = Math.floor(s.length / 2)
  const upper = s[middle] ?? 0
  return s.length % 2 ? upper : ((s[middle - 1] ?? 0) + upper) / 2
}

/**
 * The forecast of a run from its validated plan: each pass runs every step (a reasoning call each, its prompt the
 * step's text and what its dependencies hand it), then validation and convergence (the plan with its outputs), then a
 * refinement unless it is the last; the answer synthesis closes the run. Expected: the passes and the answer size of
 * stored runs like this one (`calibration`) or else one pass and the planning's own answers' size and latency. Worst
 * case: every pass the TTL allows, each call sent twice with its output at three times the cap, the refinements
 * adding up to their limit of steps — and never above the run's budget, which the guard does not let it cross.
 */
export const forecastOf = (input: ForecastInput): Forecast => {
  const { budget, calibration, plan, price } = input
  const planning = input.planningCalls
  const promptTokens = promptSizer(planning)
  const answerTokens = calibration?.outputTokensPerCall ??
    (planning.length > 0 ? median(planning.map((c) => c.outputTokens)) : DEFAULT_MAX_OUTPUT_TOKENS / 4)
  const msPerCall = calibration?.latencyMsPerCall ??
    (planning.length > 0 ? median(planning.map((c) => c.latencyMs)) : 0)
  const expectedPasses = Math.max(1, Math.min(input.passesLeft, Math.round(calibration?.executionPasses ?? 1)))
  const worstPasses = Math.max(1, input.passesLeft)
  const figures = (prompt: string, call: CallShape, requests = 1, ms = msPerCall): ForecastFigures => ({
    llmCalls: requests,
    tokens: requests * call.input + call.output,
    costUsd: costOf(input.priceFor?.(prompt) ?? price, requests * call.input, call.output),
    wallMs: requests * ms
  })
  const worst = (prompt: string) => (tokens: number) =>
    figures(prompt, { input: tokens, output: WORST_OUTPUT_PER_CALL }, WORST_REQUESTS_PER_CALL)
  const { reasoning, reviews, refinement, synthesis } = callSizes(input, promptTokens)
  const economy = economyOf(input)
  const perStep = plan.steps.map((step) => ({
    stepId: step.stepId,
    expected: economy.reasons(step)
      ? times(
        figures(PromptId.REASONING_STEP_USER, { input: reasoning(step, answerTokens), output: answerTokens }),
        expectedPasses
      )
      : zero,
    worstCase: times(worst(PromptId.REASONING_STEP_USER)(reasoning(step, WORST_OUTPUT_PER_CALL)), worstPasses)
  }))
  const n = plan.steps.length
  const answerPrompt = input.outputSchema === undefined ? PromptId.ANSWER_SYNTHESIS_USER : PromptId.ANSWER_TYPED_USER
  const expectedPass = economy.reviewed
    ? reviews(answerTokens, n).map(([p, t]) => figures(p, { input: t, output: answerTokens })).reduce(add, zero)
    : zero
  const expected = [
    ...perStep.map((s) => s.expected),
    times(expectedPass, expectedPasses),
    times(
      figures(PromptId.RECURSIVE_REFINEMENT_USER, { input: refinement(answerTokens, n), output: answerTokens }),
      expectedPasses - 1
    ),
    economy.synthesized ? figures(answerPrompt, { input: synthesis(answerTokens, n), output: answerTokens }) : zero
  ].reduce(add, zero)
  // refinements may add steps (up to their limit), each run in every pass after it
  const added = Math.min(REFINEMENT_LIMITS.total, Math.max(0, budget.maxSteps - n))
  const most = n + added
  const worstAdded = times(
    worst(PromptId.REASONING_STEP_USER)(reasoning(plan.steps[0] ?? emptyStep, WORST_OUTPUT_PER_CALL)),
    added * worstPasses
  )
  const worstPass = [
    ...reviews(WORST_OUTPUT_PER_CALL, most),
    [PromptId.RECURSIVE_REFINEMENT_USER, refinement(WORST_OUTPUT_PER_CALL, most)] as const
  ].map(([p, t]) => worst(p)(t)).reduce(add, zero)
  const structural = [
    ...perStep.map((s) => s.worstCase),
    worstAdded,
    times(worstPass, worstPasses),
    worst(answerPrompt)(synthesis(WORST_OUTPUT_PER_CALL, most))
  ].reduce(add, zero)
  const spent: ForecastFigures = {
    llmCalls: input.spent.llmCalls,
    tokens: input.spent.inputTokens + input.spent.outputTokens,
    costUsd: input.spent.costUsd,
    wallMs: input.elapsedMs
  }
  const { clamp, worstCase } = withinBudget(spent, structural, budget)
  return {
    expected: clamp(add(spent, expected)),
    worstCase,
    perStep: perStep.map((s) => ({ ...s, worstCase: clamp(s.worstCase), expected: clamp(s.expected) })),
    passes: { expected: expectedPasses, worstCase: worstPasses },
    spent,
    basis: calibration
      ? `the prompts' sizes, and the passes, answer size and latency of ${calibration.runs} stored run(s) like this one`
      : `the prompts' sizes, one pass, and the planning's own ${planning.length} call(s) for answer size and latency (no stored run like this one)`,
    similarRuns: calibration?.runs ?? 0
  }
}

/** The prompt of each call of a pass, in tokens: a step's reasoning, the reviews, a refinement, the answer. */
const callSizes = (input: ForecastInput, promptTokens: ReturnType<typeof promptSizer>) => {
  const stepData = (step: PlanStep, out: number) =>
    input.request.length + input.plan.goal.length + step.description.length +
    JSON.stringify(step.toolInput ?? "").length +
    step.dependencies.length * out * 4 + 400
  const reasoning = (step: PlanStep, out: number) =>
    promptTokens(PromptId.REASONING_STEP_SYSTEM, PromptId.REASONING_STEP_USER, stepData(step, out))
  // the plan as validation, convergence, refinement and synthesis see it: its steps with their outputs
  const planChars = (out: number, steps: number) =>
    input.request.length + input.plan.goal.length +
    input.plan.steps.reduce((n, s) => n + s.description.length + 200, 0) *
      (steps / Math.max(1, input.plan.steps.length)) +
    steps * out * 4
  const reviews = (out: number, steps: number): ReadonlyArray<readonly [string, number]> => [
    [
      PromptId.VALIDATION_SEMANTIC_USER,
      promptTokens(PromptId.VALIDATION_SEMANTIC_SYSTEM, PromptId.VALIDATION_SEMANTIC_USER, planChars(out, steps))
    ],
    [
      PromptId.CONVERGENCE_ASSESSMENT_USER,
      promptTokens(PromptId.CONVERGENCE_ASSESSMENT_SYSTEM, PromptId.CONVERGENCE_ASSESSMENT_USER, planChars(out, steps))
    ]
  ]
  const refinement = (out: number, steps: number) =>
    promptTokens(PromptId.RECURSIVE_REFINEMENT_SYSTEM, PromptId.RECURSIVE_REFINEMENT_USER, planChars(out, steps))
  // a typed run's answer call (kernel/TypedAnswer): its prompt and its schema as the format
  const synthesis = (out: number, steps: number) =>
    input.outputSchema === undefined
      ? promptTokens(PromptId.ANSWER_SYNTHESIS_SYSTEM, PromptId.ANSWER_SYNTHESIS_USER, planChars(out, steps))
      : promptTokens(
        PromptId.ANSWER_TYPED_SYSTEM,
        PromptId.ANSWER_TYPED_USER,
        planChars(out, steps) + input.outputSchema.length
      )
  return { reasoning, reviews, refinement, synthesis }
}

/** The worst case the budget allows (the guard never lets a run cross it), and a figure held within it. */
const withinBudget = (spent: ForecastFigures, structural: ForecastFigures, budget: ForecastInput["budget"]) => {
  const ceiling = add(spent, structural)
  const worstCase: ForecastFigures = {
    llmCalls: Math.min(ceiling.llmCalls, Math.max(spent.llmCalls, budget.maxLlmCalls)),
    tokens: Math.min(ceiling.tokens, Math.max(spent.tokens, budget.maxTokens)),
    costUsd: Math.min(ceiling.costUsd, Math.max(spent.costUsd, budget.maxCostUsd)),
    wallMs: Math.min(ceiling.wallMs, budget.deadlineMs)
  }
  const clamp = (f: ForecastFigures): ForecastFigures => ({
    llmCalls: Math.min(f.llmCalls, worstCase.llmCalls),
    tokens: Math.min(f.tokens, worstCase.tokens),
    costUsd: Math.min(f.costUsd, worstCase.costUsd),
    wallMs: Math.min(f.wallMs, worstCase.wallMs)
  })
  return { worstCase, clamp }
}

/** Which calls a run of the plan is expected to make (FULL: all of them; a simple iteration: where they pay). */
const economyOf = (input: ForecastInput) => {
  const simple = input.singlePass === true
  const steps = input.plan.steps
  return {
    reasons: (step: PlanStep) =>
      !simple || (step.tool ? asksMoreThanTool(step.description) : step.answer === undefined),
    reviewed: !simple || needsReview(input.request),
    synthesized: !simple ||
      !((input.plan.answer !== undefined && referencesIn(input.plan.answer).length > 0) ||
        (steps.length === 1 && steps[0]?.tool === undefined))
  }
}

const emptyStep: PlanStep = {
  stepId: "",
  stepIndex: 1,
  totalSteps: 1,
  description: "",
  dependencies: [],
  provides: [],
  incomingContext: "",
  handoffToNext: "",
  stepOutput: "",
  status: "pending"
}
