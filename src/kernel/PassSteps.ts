import { Cause, Effect, Exit, Fiber, Option } from "effect"
import type { RunHalt } from "../domain/Errors.js"
import { liveSteps, type Plan, type PlanStep } from "../domain/Plan.js"
import { wouldWait } from "./Approval.js"
import { executeStep, type ExecutionPhase, type StepResult } from "./Executor.js"
import type { RunContext } from "./RunContext.js"
import { planNow } from "./RunState.js"

/**
 * A pass's EXECUTE: which of the plan's steps run, in what order and how many at once — each step itself is the
 * Executor's.
 */

/** Steps whose dependencies are complete, in stepIndex order. */
export const readySteps = (plan: Plan): Array<PlanStep> => {
  const done = new Set(plan.steps.filter((s) => s.status === "complete").map((s) => s.stepId))
  return liveSteps(plan.steps)
    .filter((s) => s.status === "pending" && s.dependencies.every((d) => done.has(d)))
    .sort((a, b) => a.stepIndex - b.stepIndex)
}

/** EXECUTE: runs ready steps until none is ready; independent steps at once when parallelism > 1. */
export const executePass = (ctx: RunContext, passNumber: number, phase: ExecutionPhase) =>
  Effect.scoped(ctx.parallelism > 1 ? atOnce(ctx, passNumber, phase) : sweeps(ctx, passNumber, phase))

interface Running {
  readonly fiber: Fiber.RuntimeFiber<Exit.Exit<StepResult["status"], RunHalt>>
  /** It waits for a person's approval: it does not count against the parallelism, and a halt interrupts it. */
  readonly waits: boolean
}

/**
 * Steps at once: each starts as soon as its dependencies completed, up to `parallelism` under way (a step waiting for
 * a person's approval does not count); their model calls are admitted beside each other (BudgetGuard's holds). A step
 * that halts the run (a budget refused it, its provider cannot serve the run) starts no more: the steps under way
 * finish — their calls were admitted, none is cut in half — those waiting for a person are let go, then the halt ends
 * the pass.
 */
const atOnce = (ctx: RunContext, passNumber: number, phase: ExecutionPhase) =>
  Effect.gen(function*() {
    const running = new Map<string, Running>()
    let executed = 0
    let halt: RunHalt | undefined
    while (true) {
      if (halt === undefined) yield* startReady(ctx, passNumber, phase, running)
      if (running.size === 0) return halt === undefined ? executed : yield* Effect.fail(halt)
      const [stepId, exit] = yield* Effect.raceAll(
        [...running].map(([id, r]) => Effect.map(Fiber.join(r.fiber), (exit) => [id, exit] as const))
      )
      running.delete(stepId)
      executed++
      if (Exit.isSuccess(exit)) continue
      const failure = Cause.failureOption(exit.cause)
      if (Option.isNone(failure)) return yield* Effect.failCause(exit.cause)
      halt ??= failure.value
      for (const [id, r] of running) if (r.waits) yield* Fiber.interrupt(r.fiber).pipe(Effect.as(running.delete(id)))
    }
  })

/** Forks the ready steps not under way, in stepIndex order, while fewer than `parallelism` run. */
const startReady = (ctx: RunContext, passNumber: number, phase: ExecutionPhase, running: Map<string, Running>) =>
  Effect.gen(function*() {
    let busy = [...running.values()].filter((r) => !r.waits).length
    for (const step of readySteps(planNow(ctx))) {
      if (running.has(step.stepId)) continue
      const waits = wouldWait(ctx, passNumber, step)
      if (!waits && busy >= ctx.parallelism) continue
      const fiber = yield* Effect.forkScoped(Effect.exit(executeStep(ctx, passNumber, phase, step)))
      running.set(step.stepId, { fiber, waits })
      if (!waits) busy++
    }
  })

/**
 * Sweeps in stepIndex order: a step whose dependencies completed earlier in the sweep runs in the same sweep, so a
 * plan whose dependencies point backwards runs in one linear sweep. A step whose tool call waits for a person's
 * approval waits in a fiber of its own (in the pass's scope: interrupted and awaited with it) while the steps that
 * do not depend on it go on; once nothing else can run, the sweep waits for such a step to finish.
 */
const sweeps = (ctx: RunContext, passNumber: number, phase: ExecutionPhase) =>
  Effect.gen(function*() {
    let executed = 0
    const waiting = new Map<string, Fiber.RuntimeFiber<StepResult["status"], RunHalt>>()
    while (true) {
      const plan = planNow(ctx)
      const done = new Set(plan.steps.filter((s) => s.status === "complete").map((s) => s.stepId))
      const pending = liveSteps(plan.steps).filter((s) => s.status === "pending" && !waiting.has(s.stepId)).sort((
        a,
        b
      ) => a.stepIndex - b.stepIndex)
      let progressed = false
      for (const step of pending) {
        if (!step.dependencies.every((d) => done.has(d))) continue
        progressed = true
        if (wouldWait(ctx, passNumber, step)) {
          waiting.set(step.stepId, yield* Effect.forkScoped(executeStep(ctx, passNumber, phase, step)))
          continue
        }
        if ((yield* executeStep(ctx, passNumber, phase, step)) === "complete") done.add(step.stepId)
        executed++
      }
      if (progressed) continue
      if (waiting.size === 0) return executed
      const finished = yield* Effect.raceAll(
        [...waiting].map(([stepId, fiber]) => Effect.as(Fiber.join(fiber), stepId))
      )
      waiting.delete(finished)
      executed++
    }
  })
