import { Clock, Duration, Effect, Option } from "effect"
import type { Budget } from "../domain/Budget.js"
import type { Forecast } from "../domain/Forecast.js"
import type { Plan } from "../domain/Plan.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type * as RunEvents from "../kernel/RunEvents.js"
import type * as LanguageModel from "../llm/LanguageModel.js"
import { type Calibration, forecastOf, median } from "../planning/Forecast.js"
import { attemptPlan } from "../record/Attempt.js"
import { foldEvents, reachesEnd } from "../record/RunRecord.js"
import { executionPasses, resultOf } from "../record/RunResult.js"
import { RunStore } from "../store/RunStore.js"
import { memoizeWeak } from "../support/Memoize.js"
import type { RunTaskInput } from "./RunInput.js"

/** What a finished run used, as calibration reads it. */
interface RunSummary {
  readonly mode: string
  readonly steps: number
  readonly tools: string
  readonly passes: number
  readonly outputTokensPerCall: number
  readonly latencyMsPerCall: number
}

const toolsOf = (plan: Plan) => [...new Set(plan.steps.flatMap((s) => (s.tool ? [s.tool] : [])))].sort().join(",")

/** A finished run as calibration reads it: its record (the one fold of its events) and its result's figures. */
const summaryOf = (events: ReadonlyArray<RunEvent>): RunSummary | undefined => {
  if (!reachesEnd(events)) return undefined
  const record = foldEvents(events)
  const result = resultOf(record)
  // the plan as it was validated (and approved), before execution: pass 0's
  const first = record.passes.find((p) => p.passNumber === 0)?.plan
  if (!first || first.steps.length === 0 || result.usage.llmCalls === 0) return undefined
  return {
    mode: result.mode,
    steps: first.steps.length,
    tools: toolsOf(first),
    passes: executionPasses(result),
    outputTokensPerCall: result.usage.outputTokens / result.usage.llmCalls,
    latencyMsPerCall: record.thinkingMs / result.usage.llmCalls
  }
}

/** How many recent runs calibration reads, and how long what it read is reused. */
const RECENT_RUNS = 30
const REUSED = Duration.minutes(1)
/** Fewer similar runs than this: the forecast rests on the prompts and the planning alone. */
const MIN_SIMILAR = 3

/** The last finished runs of a store, summarized; failures read as none (a forecast never fails its run). */
const readSummaries = (store: RunStore["Type"]) =>
  Effect.gen(function*() {
    const page = yield* store.listRuns({ first: RECENT_RUNS })
    const finished = page.runs.filter((r) => ["CONVERGED", "NOT_CONVERGED", "FAILED"].includes(r.status))
    const summaries = yield* Effect.forEach(finished, (r) => Effect.map(store.events(r.id), summaryOf), {
      concurrency: 4
    })
    return summaries.flatMap((s) => (s ? [s] : []))
  }).pipe(Effect.orElseSucceed(() => [] as ReadonlyArray<RunSummary>))

/** Each store's summaries, read at most once a minute (Effect.cachedWithTTL): a run start mostly pays nothing. */
const cachedSummaries = memoizeWeak((store: RunStore["Type"]) =>
  Effect.runSync(Effect.cachedWithTTL(readSummaries(store), REUSED))
)

const recentSummaries: Effect.Effect<ReadonlyArray<RunSummary>> = Effect.flatMap(
  Effect.serviceOption(RunStore),
  Option.match({ onNone: () => Effect.succeed([]), onSome: cachedSummaries })
)

/**
 * Stored runs "like this one": the same mode, a first plan of as many steps (one more or fewer) using the same tools.
 * Their medians calibrate the forecast once there are at least three.
 */
export const calibrationFor = (mode: string, plan: Plan, summaries: ReadonlyArray<RunSummary>) => {
  const tools = toolsOf(plan)
  const similar = summaries.filter((s) =>
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

/** The run's forecaster (RunContext.forecast): its plan priced at its model's rate, on what it has spent. */
export const forecaster = (
  model: LanguageModel.Service,
  input: RunTaskInput,
  events: RunEvents.RunEvents,
  startedAt: number,
  summaries: Effect.Effect<ReadonlyArray<RunSummary>> = recentSummaries
) =>
(plan: Plan, passesLeft: number, budget: Budget = input.budget): Effect.Effect<Forecast> =>
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
      budget,
      spent: events.record().usage,
      elapsedMs: now - startedAt,
      planningCalls: planning,
      passesLeft,
      price: model.price,
      calibration: calibrationFor(events.record().started?.mode ?? input.mode, plan, yield* summaries)
    })
  })

/**
 * The forecast from where the run is: its plan now and the passes its TTL leaves (what a budget extension request
 * shows); none before it has a plan.
 */
export const forecastLeft = (
  forecast: (plan: Plan, passesLeft: number, budget: Budget) => Effect.Effect<Forecast>,
  events: RunEvents.RunEvents,
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
    return forecast(attemptPlan(attempt), Math.max(1, attempt.ttlRemaining), unbounded)
  })
