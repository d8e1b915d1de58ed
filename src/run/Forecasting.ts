import { Clock, Effect, Option } from "effect"
import type { Budget } from "../domain/Budget.js"
import type { Forecast } from "../domain/Forecast.js"
import type { Plan } from "../domain/Plan.js"
import type * as RunJournal from "../journal/RunJournal.js"
import type * as LanguageModel from "../llm/LanguageModel.js"
import { type Calibration, forecastOf, median } from "../planning/Forecast.js"
import { attemptPlan } from "../record/Attempt.js"
import { type RunFigures, toolsOf } from "../record/RunFigures.js"
import { RunStore } from "../store/RunStore.js"
import type { RunTaskInput } from "./RunInput.js"

/** How many recent runs calibration reads. */
const RECENT_RUNS = 30
/** Fewer similar runs than this: the forecast rests on the prompts and the planning alone. */
const MIN_SIMILAR = 3

/**
 * The figures of the last finished runs of the store (one small row each, stored at their end); a failure to read
 * them reads as none (a forecast never fails its run).
 */
const recentFigures: Effect.Effect<ReadonlyArray<RunFigures>> = Effect.flatMap(
  Effect.serviceOption(RunStore),
  Option.match({
    onNone: () => Effect.succeed([]),
    onSome: (store) => store.recentFigures(RECENT_RUNS).pipe(Effect.orElseSucceed(() => []))
  })
)

/**
 * Stored runs "like this one": the same mode, a first plan of as many steps (one more or fewer) using the same tools.
 * Their medians calibrate the forecast once there are at least three.
 */
export const calibrationFor = (mode: string, plan: Plan, figures: ReadonlyArray<RunFigures>) => {
  const tools = toolsOf(plan)
  const similar = figures.filter((s) =>
    s.mode === mode && Math.abs(s.steps - plan.steps.length) <= 1 && s.tools === tools
  )
  if (similar.length < MIN_SIMILAR) return undefined
  return {
    runs: similar.length,
    executionPasses: median(similar.map((s) => s.passes)),
    outputTokensPerCall: median(similar.map((s) => s.outputTokensPerCall)),
    latencyMsPerCall: median(similar.map((s) => s.latencyMsPerCall))
  } satisfies Calibration
}

/** The budget to forecast within (the run's, unless given), and whether the plan runs as a simple iteration. */
export interface ForecastOptions {
  readonly budget?: Budget | undefined
  readonly singlePass?: boolean | undefined
}

/** The run's forecaster (RunContext.forecast): its plan priced at its model's rate, on what it has spent. */
export const forecaster = (
  model: LanguageModel.Service,
  input: RunTaskInput,
  events: RunJournal.RunJournal,
  startedAt: number,
  figures: Effect.Effect<ReadonlyArray<RunFigures>> = recentFigures
) =>
(plan: Plan, passesLeft: number, options: ForecastOptions = {}): Effect.Effect<Forecast> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const log = yield* events.log
    const planning = log.flatMap((e) =>
      e._tag === "LlmCalled" && !e.replayed && e.error === undefined
        ? [{
          outputTokens: e.outputTokens,
          latencyMs: e.latencyMs,
          inputTokens: e.inputTokens,
          // a call sent once, its prompt recorded: what a character of prompt costs in tokens with this model
          ...(e.call && (e.requests ?? 1) === 1 ? { promptChars: e.call.system.length + e.call.user.length } : {})
        }]
        : []
    )
    return forecastOf({
      request: input.task,
      plan,
      budget: options.budget ?? input.budget,
      singlePass: options.singlePass === true,
      spent: events.record().usage,
      elapsedMs: now - startedAt,
      planningCalls: planning,
      passesLeft,
      ...(input.outputSchema !== undefined ? { outputSchema: JSON.stringify(input.outputSchema) } : {}),
      price: model.price,
      ...(model.priceFor ? { priceFor: model.priceFor } : {}),
      calibration: calibrationFor(events.record().started?.mode ?? input.mode, plan, yield* figures)
    })
  })

/**
 * The forecast from where the run is: its plan now and the passes its TTL leaves (what a budget extension request
 * shows); none before it has a plan.
 */
export const forecastLeft = (
  forecast: (plan: Plan, passesLeft: number, options: ForecastOptions) => Effect.Effect<Forecast>,
  events: RunJournal.RunJournal,
  budget: Budget
): Effect.Effect<Forecast | undefined> =>
  Effect.suspend(() => {
    const attempt = events.record().attempt
    if (!attempt || attempt.plan.steps.length === 0) return Effect.succeed(undefined)
    // what the rest needs, not bounded by the caps a person is asked to raise
    const unbounded = {
      ...budget,
      maxCostUsd: Infinity,
      maxTokens: Infinity,
      maxLlmCalls: Infinity,
      maxSteps: Infinity
    }
    return forecast(attemptPlan(attempt), Math.max(1, attempt.ttlRemaining), { budget: unbounded })
  })
