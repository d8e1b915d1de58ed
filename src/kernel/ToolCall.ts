/**
 * A step's tool call: its input's references resolved, the approval gate (a person's, or untrusted data's), the
 * tool_call and tool_result guardrails, the call itself in an uninterruptible region (a call with side effects made
 * once, one at a time, after everything before it is stored), and its ToolInvoked event.
 */
import { Clock, Effect, Either, Fiber, Option, Ref } from "effect"
import { isRunHalt } from "../domain/Errors.js"
import type { ToolStep } from "../domain/Plan.js"
import type { Trigger } from "../guardrails/Checking.js"
import { notesAt } from "../memory/RunMemory.js"
import { toolCallInput } from "../record/Attempt.js"
import { callKey } from "../record/Calls.js"
import * as Supervisor from "../supervisor/Supervisor.js"
import { traced } from "../telemetry/Span.js"
import {
  actsOutside,
  type CallReport,
  readsOutside,
  type Tool,
  type ToolError,
  ToolFailedError,
  ToolInputError
} from "../tools/ToolRegistry.js"
import { approve } from "./Approval.js"
import type { GuardSite } from "./Guarding.js"
import { type RunContext, RunLifecycle } from "./RunContext.js"
import { memoryNow } from "./RunState.js"
import { describeToolError } from "./ToolOutage.js"

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
    let report: CallReport = {}
    const invoke = ctx.tools.invoke(step.tool, input, {
      runId: ctx.runId,
      memory,
      notes,
      step: site,
      report: (said) => {
        report = { ...report, ...said }
      }
    })
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
    const facts = yield* toolFacts(definition, result)
    yield* ctx.events.emit({
      _tag: "ToolInvoked",
      ...(memoryWrites ? { memoryWrites } : {}),
      passNumber,
      stepId: step.stepId,
      tool: step.tool,
      input,
      durationMs,
      ...facts,
      ...(made ? { reusedFrom: made.from } : recorded ? { replayed: true } : {}),
      ...(report.childRun ? { childRun: report.childRun } : {}),
      ...(report.remoteTaskId !== undefined ? { remoteTaskId: report.remoteTaskId } : {}),
      ...(Either.isRight(result) ? { output: result.right } : { error: describeToolError(result.left) })
    })
    report.onRecorded?.()
    // last: an interruption pending since the tool started takes effect here, with the result recorded
    if (definition?.idempotent === false) yield* restore(ctx.events.flushed)
    return result
  })

/**
 * What a call's event says of its tool: an MCP tool's server and result size (in its span too), whether its result
 * is untrusted data and whether it acts outside the run.
 */
const toolFacts = (definition: Tool | undefined, result: Either.Either<unknown, ToolError>) =>
  Effect.gen(function*() {
    const resultBytes = definition?.server !== undefined && Either.isRight(result)
      ? Buffer.byteLength(JSON.stringify(result.right) ?? "")
      : undefined
    if (definition?.server !== undefined) {
      yield* Effect.annotateCurrentSpan({
        "aeon.mcp.server": definition.server,
        ...(resultBytes !== undefined ? { "aeon.tool.result_bytes": resultBytes } : {})
      })
    }
    return {
      ...(definition?.server === undefined ? {} : { server: definition.server }),
      ...(resultBytes !== undefined ? { resultBytes } : {}),
      ...(definition && readsOutside(definition) ? { untrusted: true } : {}),
      ...(definition && actsOutside(definition) ? { actsOutside: true } : {})
    }
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

/** Whether this process still holds the run (another may have taken it up meanwhile): a defect here if not. */
const stillHeld = Effect.flatMap(
  Effect.serviceOption(RunLifecycle),
  (lifecycle) => Option.getOrUndefined(lifecycle)?.stillHeld ?? Effect.void
)

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
        Effect.zipRight(
          restore(Effect.zipRight(ctx.events.flushed, stillHeld)),
          invokeTool(ctx, passNumber, step, approved.right, restore)
        ),
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
export const runTool = (ctx: RunContext, passNumber: number, step: ToolStep) =>
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
