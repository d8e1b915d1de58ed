import { Effect, Either, Option } from "effect"
import type { RunHalt } from "../domain/Errors.js"
import { isToolStep, type Plan, type PlanStep, transitionStep } from "../domain/Plan.js"
import { isModelFailure, type LlmError } from "../llm/Llm.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import { extend } from "../support/Extend.js"
import { traced } from "../telemetry/Span.js"
import { resultText, toolSuffices } from "./Economy.js"
import { type RunContext, RunLifecycle } from "./RunContext.js"
import { callSite } from "./RunLlm.js"
import { planNow, ttlRemainingNow, unfinishedToolResultNow } from "./RunState.js"
import { runTool } from "./ToolCall.js"
import { describeToolError } from "./ToolOutage.js"

/** The handoffs the step receives: its dependencies' and the previous live step's (bounded, not the whole history). */
const incomingContext = (plan: Plan, step: PlanStep): string => {
  const sources: Array<PlanStep> = []
  // steps sit at stepIndex - 1; the previous live step is the nearest earlier one not superseded
  for (let i = step.stepIndex - 2; i >= 0; i--) {
    const s = plan.steps[i]
    if (s && s.supersededBy === undefined) {
      sources.push(s)
      break
    }
  }
  if (step.dependencies.length > 0) {
    for (const s of plan.steps) if (step.dependencies.includes(s.stepId) && !sources.includes(s)) sources.push(s)
  }
  return sources
    .filter((s) => s.status === "complete" && s.handoffToNext !== "" && s.supersededBy === undefined)
    .sort((a, b) => a.stepIndex - b.stepIndex)
    .map((s) => `[${s.stepId}] ${s.handoffToNext}`)
    .join("\n")
}

export interface StepResult {
  readonly status: "complete" | "failed" | "invalid"
  readonly stepOutput: string
  readonly clarityState?: "CLEAR" | "PARTIALLY_CLEAR" | "BLOCKED" | undefined
  readonly handoffToNext: string
  readonly error?: string | undefined
  /** Who wrote the output: the tool (its result, no reasoning call) or the model. */
  readonly outputBy?: "tool" | "model" | "plan" | undefined
}

/** The reasoning of one step (and of its substeps, when it has a subplan). */
/** The phase a pass executes in: EXECUTE for an attempt's first execution pass, RE_EXECUTE after (Orchestrator's rule). */
export type ExecutionPhase = "EXECUTE" | "RE_EXECUTE"

/** A step complete with `text` as its output, written by `by` (no reasoning call). */
const completeWith = (text: string, by: "tool" | "plan"): StepResult => ({
  status: "complete",
  stepOutput: text,
  clarityState: "CLEAR",
  handoffToNext: text,
  outputBy: by
})

/**
 * A simple iteration's step that needs no reasoning call: a tool step asking no more than its tool's work (the result
 * is its output), or a step the planner answered as it planned (no tool: its answer is its output).
 */
const withoutReasoning = (ctx: RunContext, step: PlanStep, toolResult: unknown): StepResult | undefined => {
  if (!ctx.singlePass) return undefined
  if (step.tool && toolResult !== undefined && toolSuffices(step.description, toolResult)) {
    return completeWith(resultText(toolResult), "tool")
  }
  return !step.tool && step.answer !== undefined ? completeWith(step.answer, "plan") : undefined
}

const reason = (
  ctx: RunContext,
  passNumber: number,
  phase: ExecutionPhase,
  plan: Plan,
  step: PlanStep,
  context: string,
  toolResult: unknown
): Effect.Effect<StepResult, RunHalt> =>
  Effect.gen(function*() {
    if (step.subplan) {
      const outputs: Array<string> = []
      let carried = context
      for (const sub of step.subplan.substeps) {
        const r = yield* reason(ctx, passNumber, phase, plan, sub, carried, undefined)
        if (r.status !== "complete") return { ...r, error: `substep ${sub.stepId}: ${r.error ?? r.status}` }
        outputs.push(r.stepOutput)
        carried = `${carried}\n[${sub.stepId}] ${r.handoffToNext}`.trim()
      }
      // substeps that said nothing add nothing (joining empty outputs made a whitespace-only output)
      const said = outputs.filter((o) => o.trim() !== "")
      return {
        status: "complete",
        stepOutput: said.join("\n"),
        clarityState: "CLEAR",
        handoffToNext: said.join("\n")
      } as const
    }
    const unreasoned = withoutReasoning(ctx, step, toolResult)
    if (unreasoned) return unreasoned
    const answer = yield* ctx.llm.generate(Contracts.reasoningStep, {
      request: ctx.request,
      planGoal: plan.goal,
      stepId: step.stepId,
      stepDescription: step.description,
      stepIndex: step.stepIndex,
      totalSteps: step.totalSteps,
      passNumber,
      phase,
      ttlRemaining: ttlRemainingNow(ctx),
      correlationId: `${ctx.runId}:${passNumber}:${step.stepId}`,
      incomingContext: context,
      ...(step.tool ? { toolName: step.tool, toolResult } : {})
    }).pipe(Effect.either)
    if (Either.isLeft(answer)) {
      const e: LlmError = answer.left
      if (!isModelFailure(e)) return yield* e
      return {
        status: "failed",
        stepOutput: "",
        handoffToNext: "",
        error: `reasoning failed: ${e.message}`
      } as const
    }
    const o = answer.right.output
    return {
      status: o.clarityState === "BLOCKED" ? "invalid" : "complete",
      stepOutput: o.stepOutput,
      clarityState: o.clarityState,
      handoffToNext: o.handoffToNext,
      outputBy: "model"
    } as const
  })

/**
 * A step cut off by an interruption (the deadline, a cancellation) records itself: failed, abandoned, with the
 * reason. Each running step does, so parallel steps are all accounted for. A server shutting down is not an
 * interruption of the run: the step stays as it was and runs again when the run resumes.
 */
const abandon = (ctx: RunContext, passNumber: number, stepId: string) =>
  Effect.gen(function*() {
    const lifecycle = yield* Effect.serviceOption(RunLifecycle)
    if (Option.isSome(lifecycle) && (yield* lifecycle.value.shuttingDown)) return
    const reason = (yield* ctx.guard.remaining).deadlineMs === 0
      ? `deadline of ${ctx.budget.deadlineMs} ms reached`
      : "the run was cancelled"
    yield* ctx.events.emit({ _tag: "StepAbandoned", passNumber, stepId, reason })
  })

/** The step's work once started: its tool (if any, or the result recovered after a restart), then its reasoning. */
const perform = (
  ctx: RunContext,
  passNumber: number,
  phase: ExecutionPhase,
  running: PlanStep,
  plan: Plan,
  context: string
) =>
  Effect.gen(function*() {
    // a tool that completed for this step before a restart (or before a repeated evaluation) is not called again
    const recovered = unfinishedToolResultNow(ctx, running.stepId)
    const tool = isToolStep(running)
      ? (recovered !== undefined ? Either.right(recovered) : yield* runTool(ctx, passNumber, running))
      : undefined
    if (tool && Either.isLeft(tool)) {
      return { status: "failed", stepOutput: "", handoffToNext: "", error: describeToolError(tool.left) } as StepResult
    }
    return yield* reason(ctx, passNumber, phase, plan, running, context, tool?.right)
  })

/**
 * A step starts, in one synchronous step: admitted by the budget on the run's usage as it is now, its incoming context
 * read from the plan, its StepStarted emitted (which counts it). What it returns is what the rest of the step works
 * with.
 */
const start = (ctx: RunContext, passNumber: number, step: PlanStep): Effect.Effect<Started, RunHalt> =>
  admittedStart(ctx, passNumber, step).pipe(
    // refused and given more budget (an interactive run): admitted again
    Effect.catchAll((refusal) =>
      Effect.flatMap(
        ctx.guard.moreBudget(refusal),
        (given) => (given ? start(ctx, passNumber, step) : Effect.fail(refusal))
      )
    )
  )

interface Started {
  readonly started: number
  readonly plan: Plan
  readonly context: string
  readonly running: PlanStep
}

const admittedStart = (ctx: RunContext, passNumber: number, step: PlanStep) =>
  Effect.suspend(() => {
    const plan = planNow(ctx)
    const context = incomingContext(plan, step)
    const running = extend(Either.getOrThrow(transitionStep(step, "running")), { incomingContext: context })
    return Effect.map(
      ctx.events.emitWhen((record) => {
        const refused = ctx.guard.stepRefusal(record.usage)
        return refused ? Either.left(refused) : Either.right({
          _tag: "StepStarted" as const,
          passNumber,
          stepId: step.stepId,
          stepIndex: step.stepIndex,
          ...(context !== "" ? { incomingContext: context } : {})
        })
      }),
      (started) => ({ started: started.at, plan, context, running })
    )
  })

/** The step's StepFinished with its result (uninterruptible: once its result is in, the step finishes whole). */
const finish = (ctx: RunContext, passNumber: number, running: PlanStep, started: number, result: StepResult) =>
  Effect.uninterruptible(Effect.clockWith((clock) => {
    // the transition must be a legal one; what it leaves is the rule the run's record applies to StepFinished
    Either.getOrThrow(transitionStep(extend(running, { clarityState: result.clarityState }), result.status))
    return ctx.events.emit({
      _tag: "StepFinished",
      passNumber,
      stepId: running.stepId,
      status: result.status,
      stepOutput: result.stepOutput,
      handoffToNext: result.handoffToNext,
      durationMs: clock.unsafeCurrentTimeMillis() - started,
      ...(result.clarityState ? { clarityState: result.clarityState } : {}),
      ...(result.error ? { error: result.error } : {}),
      ...(result.outputBy ? { outputBy: result.outputBy } : {})
    })
  }))

/** Executes one step: admitted by the budget, its tool (if any), then the reasoning prompt. */
export const executeStep = (ctx: RunContext, passNumber: number, phase: ExecutionPhase, step: PlanStep) =>
  Effect.flatMap(start(ctx, passNumber, step), ({ context, plan, running, started }) =>
    // an interruption before the step finished abandons it; once its result is in, the step finishes whole
    perform(ctx, passNumber, phase, running, plan, context).pipe(
      Effect.locallyWith(callSite, (site) => extend(site, { stepId: step.stepId })),
      Effect.tap((result) => finish(ctx, passNumber, running, started, result)),
      Effect.onInterrupt(() => abandon(ctx, passNumber, step.stepId)),
      Effect.map((result) => result.status)
    )).pipe(
      traced("Executor.step", {
        captureStackTrace: false,
        attributes: { "aeon.run_id": ctx.runId, "aeon.pass": passNumber, "aeon.step_id": step.stepId }
      })
    )
