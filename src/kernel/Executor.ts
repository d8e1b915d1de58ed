import { Clock, Effect, Either, Fiber, Option, Ref } from "effect"
import { isRunHalt, type RunHalt } from "../domain/Errors.js"
import { isToolStep, type Plan, type PlanStep, type ToolStep, transitionStep } from "../domain/Plan.js"
import type { Trigger } from "../guardrails/Checking.js"
import { isModelFailure, type LlmError } from "../llm/Llm.js"
import { notesAt } from "../memory/RunMemory.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import { toolCallInput } from "../record/Attempt.js"
import { callKey } from "../record/Calls.js"
import * as Supervisor from "../supervisor/Supervisor.js"
import { extend } from "../support/Extend.js"
import { traced } from "../telemetry/Span.js"
import { actsOutside, readsOutside, type ToolError, ToolFailedError, ToolInputError } from "../tools/ToolRegistry.js"
import { approve } from "./Approval.js"
import { resultText, toolSuffices } from "./Economy.js"
import type { GuardSite } from "./Guarding.js"
import { type RunContext, RunLifecycle } from "./RunContext.js"
import { callSite } from "./RunLlm.js"
import { memoryNow, planNow, ttlRemainingNow, unfinishedToolResultNow } from "./RunState.js"
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

/** The entries a tool call set in the run's memory (the map is replaced on write: the same map means none). */
const writesBetween = (before: ReadonlyMap<string, unknown>, after: ReadonlyMap<string, unknown>) => {
  if (before === after) return undefined
  const writes: Record<string, unknown> = {}
  for (const [key, value] of after) if (!before.has(key) || before.get(key) !== value) writes[key] = value
  return Object.keys(writes).length > 0 ? writes : undefined
}

/**
 * The tool run and its ToolInvoked event, inside callTool's uninterruptible region (`restore` lets a read-only tool
 * be cut off with the run). A tool with side effects: the run goes on only once its result is stored.
 */
const invokeTool = (
  ctx: RunContext,
  passNumber: number,
  step: ToolStep,
  asked: unknown,
  restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const definition = ctx.tools.get(step.tool)
    const site = { passNumber, stepId: step.stepId }
    // the tool_call guardrails first: the input the tool gets, the run records and a recording is found by
    const call = yield* ctx.guardrails.value("tool_call", asked, site)
    const input = call.value

    const started = yield* Clock.currentTimeMillis
    // a fork's recording of this call stands for it, and so does this run's own call with side effects made in an
    // earlier pass (another iteration, the escalation, a refinement): the tool is not called again
    const made = definition?.idempotent === false ? madeBefore(ctx, passNumber, step.tool, input) : undefined
    const recorded = made ?? ctx.tools.recorded?.(step.tool, input)
    // the tool works on the memory as the run's events left it; what it writes goes into its ToolInvoked event
    const memoryBefore = memoryNow(ctx)
    const memory = yield* Ref.make(memoryBefore)
    const notes = ctx.memory && notesAt(ctx.memory, step.stepId, passNumber)
    const invoke = ctx.tools.invoke(step.tool, input, { runId: ctx.runId, memory, notes })
    // a synchronous tool runs right here; a read-only one that may be cut off, interruptibly with the run (its MCP
    // request cancelled); any other in a fiber of its own, so that its timeout can interrupt it.
    // A daemon: a fiber passes an interruption on to its children at once, even while itself uninterruptible
    const result: Either.Either<unknown, ToolError> = call.blocked
      ? Either.left(blockedBy(step, call.blocked))
      : recorded
      ? Either.right(recorded.output)
      : yield* Effect.flatMap(
        Effect.either(
          definition?.synchronous
            ? invoke
            : definition?.interruptible
            ? restore(invoke)
            : Fiber.join(yield* Effect.forkDaemon(Effect.interruptible(invoke)))
        ),
        (r) => guardResult(ctx, step, r, site)
      )
    const durationMs = (yield* Clock.currentTimeMillis) - started
    const memoryWrites = recorded ? recorded.memoryWrites : writesBetween(memoryBefore, yield* Ref.get(memory))
    // an MCP tool's server and result size, in its event and span
    const resultBytes = definition?.server !== undefined && Either.isRight(result)
      ? Buffer.byteLength(JSON.stringify(result.right) ?? "")
      : undefined
    if (definition?.server !== undefined) {
      yield* Effect.annotateCurrentSpan({
        "aeon.mcp.server": definition.server,
        ...(resultBytes !== undefined ? { "aeon.tool.result_bytes": resultBytes } : {})
      })
    }
    yield* ctx.events.emit({
      _tag: "ToolInvoked",
      ...(memoryWrites ? { memoryWrites } : {}),
      passNumber,
      stepId: step.stepId,
      tool: step.tool,
      input,
      durationMs,
      ...(definition?.server === undefined ? {} : { server: definition.server }),
      ...(resultBytes !== undefined ? { resultBytes } : {}),
      ...(definition && readsOutside(definition) ? { untrusted: true } : {}),
      ...(definition && actsOutside(definition) ? { actsOutside: true } : {}),
      ...(made ? { reusedFrom: made.from } : recorded ? { replayed: true } : {}),
      ...(Either.isRight(result) ? { output: result.right } : { error: describeToolError(result.left) })
    })
    // last: an interruption pending since the tool started takes effect here, with the result recorded
    if (definition?.idempotent === false) yield* restore(ctx.events.flushed)
    return result
  })

/** A guardrail stopped the call or its result: the step fails, saying which guardrail (never the text). */
const blockedBy = (step: ToolStep, t: Trigger) =>
  new ToolFailedError({ tool: step.tool, message: t.reason ?? `guardrail ${t.guardrail} blocked the ${t.point}` })

/** The tool_result guardrails on what the tool returned, before the run sees it: redacted, or the step fails. */
const guardResult = (
  ctx: RunContext,
  step: ToolStep,
  result: Either.Either<unknown, ToolError>,
  site: GuardSite
): Effect.Effect<Either.Either<unknown, ToolError>> =>
  Either.isLeft(result) ? Effect.succeed(result) : Effect.map(
    ctx.guardrails.value("tool_result", result.right, site),
    (checked) => (checked.blocked ? Either.left(blockedBy(step, checked.blocked)) : Either.right(checked.value))
  )

/**
 * A call with side effects this run already made with the same input in an earlier pass, and succeeded: its result,
 * to be reused — "at most once" holds across attempts, not only across crashes. Two steps of one pass that make the
 * same call both make it (the plan asked for it twice).
 */
const madeBefore = (ctx: RunContext, passNumber: number, tool: string, input: unknown) => {
  const earlier = ctx.events.record().callsMade.get(callKey(tool, input))
  return earlier === undefined || earlier.passNumber >= passNumber ? undefined : {
    output: earlier.output,
    memoryWrites: earlier.memoryWrites,
    from: { seq: earlier.seq, passNumber: earlier.passNumber, stepId: earlier.stepId }
  }
}

/**
 * A tool call: in its own fiber, awaited in an uninterruptible region. An interruption of the run
 * (deadline, cancel) waits for the tool to finish; the tool's own timeout still applies to it.
 * A tool with side effects (not idempotent) is called one at a time in the run (its steps run at once otherwise),
 * starts only once everything before it is stored, and the run goes on only once its result is stored: a resumed
 * run reuses it and repeats no side effect but the one cut off in flight. An idempotent tool does not wait.
 */
const callTool = (ctx: RunContext, passNumber: number, step: ToolStep, asked: unknown) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      // a call that needs a person's approval waits for it (interruptibly: the deadline and cancel still apply)
      const approved = yield* restore(approve(ctx, passNumber, step, asked))
      if (Either.isLeft(approved)) return approved
      const definition = ctx.tools.get(step.tool)
      if (definition?.idempotent !== false) return yield* invokeTool(ctx, passNumber, step, approved.right, restore)
      // the waits for the run's other call with side effects and for the store may be interrupted: the tool has not
      // started
      yield* restore(ctx.sideEffects.take(1))
      return yield* Effect.ensuring(
        Effect.zipRight(restore(ctx.events.flushed), invokeTool(ctx, passNumber, step, approved.right, restore)),
        ctx.sideEffects.release(1)
      )
    })
  ).pipe(
    // the OpenTelemetry GenAI conventions' tool span
    traced(`execute_tool ${step.tool}`, {
      captureStackTrace: false,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": step.tool,
        "aeon.tool": step.tool,
        "aeon.step_id": step.stepId,
        "aeon.pass": passNumber
      }
    })
  )

/**
 * Runs the tool on its input with references to earlier results resolved (`{{s1}}`: record/References), repairing a
 * bad input through the supervisor once the decode fails. An unresolvable reference fails the step, unrepaired.
 */
const runTool = (ctx: RunContext, passNumber: number, step: ToolStep) =>
  Effect.gen(function*() {
    const resolved = toolCallInput(ctx.events.record().attempt, step)
    if (Either.isLeft(resolved)) {
      return Either.left(new ToolInputError({ tool: step.tool, message: `reference ${resolved.left}` }))
    }
    const input = resolved.right
    const first = yield* callTool(ctx, passNumber, step, input)
    if (Either.isRight(first) || first.left._tag !== "ToolInputError") return first
    const tool = ctx.tools.get(step.tool)
    if (!tool) return first
    const repaired = yield* Effect.either(
      Supervisor.repairToolInput(tool, input, first.left.message, ctx.llm)
    )
    if (Either.isLeft(repaired)) {
      if (isRunHalt(repaired.left)) return yield* repaired.left
      return first
    }
    return yield* callTool(ctx, passNumber, step, repaired.right.value)
  })

/** The reasoning of one step (and of its substeps, when it has a subplan). */
/** The phase a pass executes in: EXECUTE for an attempt's first execution pass, RE_EXECUTE after (Orchestrator's rule). */
export type ExecutionPhase = "EXECUTE" | "RE_EXECUTE"

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
    // a simple iteration's tool step that asks no more than its tool's work: the result is its output
    if (ctx.singlePass && step.tool && toolResult !== undefined && toolSuffices(step.description, toolResult)) {
      const text = resultText(toolResult)
      return {
        status: "complete",
        stepOutput: text,
        clarityState: "CLEAR",
        handoffToNext: text,
        outputBy: "tool"
      } as const
    }
    // a simple iteration's step the planner answered as it planned (no tool): its answer is its output
    if (ctx.singlePass && !step.tool && step.answer !== undefined) {
      return {
        status: "complete",
        stepOutput: step.answer,
        clarityState: "CLEAR",
        handoffToNext: step.answer,
        outputBy: "plan"
      } as const
    }
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
