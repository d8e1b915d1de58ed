import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber } from "effect"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { respond } from "../../src/kernel/Approval.js"
import { pendingPlanApprovals } from "../../src/record/RunRecord.js"
import { resultOf } from "../../src/record/RunResult.js"
import { prepare, type PreparedRun } from "../../src/run/Run.js"
import { scripted } from "../support/engine.js"
import { convergingScript } from "../support/scripts.js"

const task = { task: "Compute 6 * 7 and explain it", mode: "FULL" }

/** Starts a run whose plan needs approval and waits for its request. */
const untilPlanAsked = (input: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const run = yield* prepare({ ...task, approvePlan: true, ...input })
    const fiber = yield* Effect.fork(run.execute)
    const request = yield* run.events.waitFor(
      (r) => pendingPlanApprovals(r)[0],
      (e) => (e._tag === "PlanApprovalRequested" ? e : undefined)
    )
    return { run, fiber, request }
  })

const logOf = (run: PreparedRun) => run.events.log
const tagsOf = (log: ReadonlyArray<RunEvent>) => log.map((e) => e._tag)
const stepsRun = (log: ReadonlyArray<RunEvent>) => log.flatMap((e) => (e._tag === "StepStarted" ? [e.stepId] : []))

describe("dry run (#35)", () => {
  it.effect("plans and forecasts, executes nothing, and pays only the planning calls", () =>
    Effect.gen(function*() {
      const run = yield* prepare({ ...task, dryRun: true })
      const result = yield* run.execute
      const log = yield* logOf(run)
      expect(stepsRun(log)).toEqual([])
      expect(result.status).toBe("CANCELLED")
      expect(result.terminationReason).toBe("dry_run")
      expect(result.plan?.steps.map((s) => s.stepId)).toEqual(["s1", "s2"])
      const calls = log.flatMap((e) => (e._tag === "LlmCalled" ? [e.promptId] : []))
      // the planning's calls only: profile, plan, semantic validation (no step, no convergence, no synthesis)
      expect(calls.some((p) => p.startsWith("reasoning") || p.startsWith("answer") || p.startsWith("convergence")))
        .toBe(false)
      expect(result.usage.llmCalls).toBe(calls.length)
      const forecast = result.forecast!
      expect(forecast.perStep.map((s) => s.stepId)).toEqual(["s1", "s2"])
      // the planning already spent is in the totals; the rest of the run is expected to cost more than nothing
      expect(forecast.spent.llmCalls).toBe(calls.length)
      expect(forecast.expected.llmCalls).toBeGreaterThan(calls.length)
      expect(forecast.worstCase.llmCalls).toBeGreaterThanOrEqual(forecast.expected.llmCalls)
      expect(forecast.worstCase.costUsd).toBeGreaterThanOrEqual(forecast.expected.costUsd)
      expect(result.finalAnswer).toBeUndefined()
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.effect("a dry run in SIMPLE mode is refused with a coded error, and nothing is stored", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.either(prepare({ ...task, mode: "SIMPLE", dryRun: true }))
      expect(Either.isLeft(refused) && refused.left._tag).toBe("InvalidRunInputError")
      expect(Either.isLeft(refused) && refused.left.message).toMatch(/dryRun needs mode FULL or AUTO/)
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))
})

describe("plan approval (#35)", () => {
  it.effect("the run waits (AWAITING_INPUT) with the plan, its report and its forecast; APPROVE gives the result a run without approval gives", () =>
    Effect.gen(function*() {
      const plain = yield* Effect.flatMap(prepare(task), (r) => r.execute)
      const { fiber, request, run } = yield* untilPlanAsked()
      expect(request.plan.steps.map((s) => s.stepId)).toEqual(["s1", "s2"])
      expect(request.forecast.perStep).toHaveLength(2)
      expect(resultOf(run.events.record()).status).toBe("AWAITING_INPUT")
      expect(stepsRun(yield* logOf(run))).toEqual([]) // nothing executes before the answer
      yield* respond(run.events, request.requestId, { decision: "APPROVE", by: "u1" })
      const result = yield* Fiber.join(fiber)
      expect(result.status).toBe(plain.status)
      expect(result.finalAnswer?.answerText).toBe(plain.finalAnswer?.answerText)
      expect(result.plan?.steps.map((s) => s.stepId)).toEqual(plain.plan?.steps.map((s) => s.stepId))
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.effect("EDIT removing a step: that step never runs", () =>
    Effect.gen(function*() {
      const { fiber, request, run } = yield* untilPlanAsked()
      yield* respond(run.events, request.requestId, {
        decision: "EDIT",
        input: [{ actionType: "REMOVE", targetStepId: "s2", justification: "not needed" }]
      })
      const result = yield* Fiber.join(fiber)
      const log = yield* logOf(run)
      expect(stepsRun(log)).toContain("s1")
      expect(stepsRun(log)).not.toContain("s2")
      expect(result.plan?.steps.find((s) => s.stepId === "s2")).toBeUndefined()
      // the edit is on record, named after the request, once
      const applied = log.filter((e) => e._tag === "RefinementApplied" && e.requestId === request.requestId)
      expect(applied).toHaveLength(1)
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.effect("an invalid edit is refused with the validator's reason and the request stays open", () =>
    Effect.gen(function*() {
      const { fiber, request, run } = yield* untilPlanAsked()
      const refused = yield* Effect.either(respond(run.events, request.requestId, {
        decision: "EDIT",
        input: [{ actionType: "REMOVE", targetStepId: "nope" }]
      }))
      expect(Either.isLeft(refused) && refused.left._tag).toBe("ApprovalInputError")
      expect(Either.isLeft(refused) && refused.left.message).toMatch(/nope/)
      const notAList = yield* Effect.either(respond(run.events, request.requestId, { decision: "EDIT", input: 3 }))
      expect(Either.isLeft(notAList) && notAList.left.message).toMatch(/refinement actions/)
      expect(pendingPlanApprovals(run.events.record()).map((r) => r.requestId)).toEqual([request.requestId])
      yield* respond(run.events, request.requestId, { decision: "APPROVE" })
      expect((yield* Fiber.join(fiber)).status).toBe("CONVERGED")
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.effect("REJECT ends the run CANCELLED with the reason; nothing executes", () =>
    Effect.gen(function*() {
      const { fiber, request, run } = yield* untilPlanAsked()
      yield* respond(run.events, request.requestId, { decision: "REJECT", reason: "too expensive" })
      const result = yield* Fiber.join(fiber)
      expect(result.status).toBe("CANCELLED")
      expect(result.error).toMatch(/too expensive/)
      expect(stepsRun(yield* logOf(run))).toEqual([])
      expect(tagsOf(yield* logOf(run)).at(-1)).toBe("RunFinished")
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.live("unanswered within approvalTimeoutMs: rejected, CANCELLED", () =>
    Effect.gen(function*() {
      const { fiber } = yield* untilPlanAsked({ approvalTimeoutMs: 50 })
      const result = yield* Fiber.join(fiber)
      expect(result.status).toBe("CANCELLED")
      expect(result.error).toMatch(/not answered within 50 ms/)
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))
})
