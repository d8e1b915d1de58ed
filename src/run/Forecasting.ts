import { Clock, Effect, Option } from "effect"
import type { Budget } from "../domain/Budget.js"
import type { Forecast } from "../domain/Forecast.js"
import type { Plan } from "../domain/Plan.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type * as RunEvents from "../kernel/RunEvents.js"
import type * as LanguageModel from "../llm/LanguageModel.js"
import { type Calibration, forecastOf } from "../planning/Forecast.js"
import { attemptPlan } from "../record/Attempt.js"
import { RunStore } from "../store/RunStore.js"
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
const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const summaryOf = (mode: string, events: ReadonlyArray<RunEvent>): RunSummary | undefined => {
  const plan = events.find((e) => e._tag === "PlanCreated")
  if (plan?._tag !== "PlanCreated" || events.at(-1)?._tag !== "RunFinished") return undefined
  const calls = events.flatMap((e) => (e._tag === "LlmCalled" && !e.replayed && e.error === undefined ? [e] : []))
  return {
    mode,
    steps: plan.plan.steps.length,
    tools: toolsOf(plan.plan),
    passes: new Set(events.flatMap((e) => (e._tag === "StepStarted" ? [e.passNumber] : []))).size,
    outputTokensPerCall: mean(calls.map((c) => c.outputTokens)),
    latencyMsPerCall: mean(calls.map((c) => c.latencyMs))
  }
}

/** How many recent runs calibration reads, and how long what it read is reused. */
const RECENT_RUNS = 30
const REUSED_MS = 60_000
/** Fewer similar runs than this: the forecast rests on the prompts and the planning alone. */
const MIN_SIMILAR = 3

const cache = new WeakMap<object, { readonly at: number; readonly summaries: ReadonlyArray<RunSummary> }>()

/** The last finished runs of the store, summarized: read at most once a minute per store (a run start pays nothing). */
const recentSummaries = Effect.gen(function*() {
  const store = yield* Effect.serviceOption(RunStore)
  if (Option.isNone(store)) return []
  const now = yield* Clock.currentTimeMillis
  const cached = cache.get(store.value)
  if (cached && now - cached.at < REUSED_MS) return cached.summaries
  const page = yield* store.value.listRuns({ first: RECENT_RUNS })
  const finished = page.runs.filter((r) => ["CONVERGED", "NOT_CONVERGED", "FAILED"].includes(r.status))
  const summaries = yield* Effect.forEach(
    finished,
    (r) => Effect.map(store.value.events(r.id), (events) => summaryOf(r.mode, events)),
    { concurrency: 4 }
  )
  const kept = summaries.flatMap((s) => (s ? [s] : []))
  cache.set(store.value, { at: now, summaries: kept })
  return kept
}).pipe(Effect.orElseSucceed(() => [] as ReadonlyArray<RunSummary>))

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
