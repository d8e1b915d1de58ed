import { Effect } from "effect"
import type { Profiled } from "../adaptive/AdaptiveDepth.js"
import type { ConvergenceAssessment, SemanticValidationReport } from "../domain/Evaluation.js"
import type { Plan } from "../domain/Plan.js"
import type { PassResult } from "../domain/Result.js"
import { attemptPlan, type AttemptRecord } from "../record/Attempt.js"
import { emptyLedger, type RefinementLedger } from "../record/Refinements.js"
import type { RunContext } from "./RunContext.js"

/**
 * What the kernel knows of an attempt while it goes: a projection of the run's record, which only the run's events
 * change (emit → `applyEvent`). A resumed run's state is the same projection of the stored events.
 */
export interface RunState {
  readonly plan: Plan
  readonly passNumber: number
  readonly ttlRemaining: number
  readonly profiled?: Profiled | undefined
  readonly report?: SemanticValidationReport | undefined
  readonly assessment?: ConvergenceAssessment | undefined
  readonly ledger: RefinementLedger
  readonly advisories: ReadonlyArray<string>
  readonly followUpQuestions: ReadonlyArray<string>
  readonly manualInterventions: ReadonlyArray<{ readonly stepId: string; readonly reason: string }>
  readonly lastCompletedPass?: PassResult | undefined
  /** Tool results of the current pass. */
  readonly currentToolResults: Readonly<Record<string, unknown>>
  /** Steps of the current pass cut off by an interruption (each running step records its own). */
  readonly abandonedStepIds: ReadonlyArray<string>
  /** Tool results of steps not finished yet: a step run again after a restart reuses its tool's result. */
  readonly unfinishedToolResults: Readonly<Record<string, unknown>>
  /** The run's short-term memory as the tool calls left it. */
  readonly memory: ReadonlyMap<string, unknown>
}

/** An attempt before its first event: nothing planned yet. */
export const initialState = (request: string, firstPass: number): RunState => ({
  plan: { goal: request, steps: [] },
  passNumber: firstPass,
  ttlRemaining: 0,
  ledger: emptyLedger,
  advisories: [],
  followUpQuestions: [],
  manualInterventions: [],
  currentToolResults: {},
  abandonedStepIds: [],
  unfinishedToolResults: {},
  memory: new Map()
})

/** The kernel's view of an attempt's record (arrays copied: a state read is a snapshot). */
export const stateOf = (a: AttemptRecord): RunState => ({
  plan: attemptPlan(a),
  passNumber: a.passNumber,
  ttlRemaining: a.ttlRemaining,
  profiled: a.profiled ? { ...a.profiled, advisories: [] } : undefined,
  report: a.report,
  assessment: a.assessment,
  ledger: a.ledger,
  advisories: [...a.advisories],
  followUpQuestions: [...a.followUpQuestions],
  manualInterventions: [...a.manualInterventions],
  lastCompletedPass: a.lastCompletedPass,
  // replaced (not emptied) when a pass starts: a snapshot keeps its pass's results
  currentToolResults: a.passTools,
  abandonedStepIds: [...a.abandoned.keys()],
  unfinishedToolResults: { ...a.toolResults },
  memory: a.memory
})

/**
 * One part of the attempt's state now, read from the record without the snapshot's copies: a step reads its plan,
 * the memory, a recovered tool result and the time left, each several times (no per-step copies).
 * Plain reads: the kernel reads them inside its own synchronous steps, an Effect around each would be a fiber
 * operation more per read.
 */
const partNow = <A>(ctx: RunContext, part: (a: AttemptRecord) => A, before: () => A): A => {
  const a = ctx.events.record().attempt
  return a ? part(a) : before()
}

/** The attempt's plan now (the record's projection, remembered while its events are the same). */
export const planNow = (ctx: RunContext): Plan =>
  partNow(ctx, attemptPlan, () => initialState(ctx.request, ctx.firstPass).plan)

/** The run's memory as the tool calls left it. */
export const memoryNow = (ctx: RunContext): ReadonlyMap<string, unknown> =>
  partNow<ReadonlyMap<string, unknown>>(ctx, (a) => a.memory, () => new Map())

/** The tool result of a step not finished yet (a step run again after a restart reuses it), if there is one. */
export const unfinishedToolResultNow = (ctx: RunContext, stepId: string): unknown =>
  partNow(ctx, (a) => a.toolResults[stepId], () => undefined)

/** The time the attempt's plan gives itself (ttl), as the kernel reports it to the model. */
export const ttlRemainingNow = (ctx: RunContext): number => partNow(ctx, (a) => a.ttlRemaining, () => 0)

/** The state of the context's attempt now. */
export const currentState = (ctx: RunContext): Effect.Effect<RunState> =>
  Effect.sync(() => partNow(ctx, stateOf, () => initialState(ctx.request, ctx.firstPass)))
