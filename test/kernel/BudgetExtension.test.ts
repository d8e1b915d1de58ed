import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer } from "effect"
import { respond } from "../../src/kernel/Approval.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { pendingBudgetExtensions } from "../../src/record/RunRecord.js"
import { executionPasses } from "../../src/record/RunResult.js"
import * as Fork from "../../src/run/Fork.js"
import { prepare } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import { RunStore } from "../../src/store/RunStore.js"
import { scripted } from "../support/engine.js"
import { convergingScript, verdict } from "../support/scripts.js"

const task = { task: "Compute 6 * 7 and explain it", mode: "FULL" }

/** Starts an interactive run under these caps and waits for its budget extension request. */
const untilAsked = (budget: Record<string, number>, more: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const run = yield* prepare({ ...task, interactive: true, budget, ...more })
    const fiber = yield* Effect.fork(run.execute)
    const request = yield* run.events.waitFor(
      (r) => pendingBudgetExtensions(r)[0],
      (e) => (e._tag === "BudgetExtensionRequested" ? e : undefined)
    )
    return { run, fiber, request }
  })

describe("budget extension instead of a hard stop (#35)", () => {
  it.effect("maxLlmCalls too small: the run waits with the cap, its use and the forecast; APPROVE with a larger cap converges as an unbounded run does", () =>
    Effect.gen(function*() {
      const unbounded = yield* Effect.flatMap(prepare(task), (r) => r.execute)
      expect(unbounded.usage.llmCalls).toBeGreaterThan(4)
      const { fiber, request, run } = yield* untilAsked({ maxLlmCalls: 4 })
      expect(request).toMatchObject({ dimension: "llmCalls", limit: 4, used: 4, proposed: { maxLlmCalls: 8 } })
      expect(request.needs).toMatch(/LLM call limit 4 reached/)
      expect(request.forecast?.perStep.length).toBeGreaterThan(0)
      // what the rest needs, not bounded by the cap that stopped it
      expect(request.forecast!.expected.llmCalls).toBeGreaterThan(4)
      expect(run.events.record().usage.llmCalls).toBe(4) // nothing past the cap while it waits
      yield* respond(run.events, request.requestId, { decision: "APPROVE", input: { maxLlmCalls: 50 } })
      const result = yield* Fiber.join(fiber)
      expect(result.status).toBe("CONVERGED")
      expect(result.finalAnswer?.answerText).toBe(unbounded.finalAnswer?.answerText)
      expect(result.usage.llmCalls).toBe(unbounded.usage.llmCalls)
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.effect("APPROVE without caps gives the proposal (the cap doubled), asked again when that runs out too", () =>
    Effect.gen(function*() {
      const { fiber, request, run } = yield* untilAsked({ maxLlmCalls: 2 })
      yield* respond(run.events, request.requestId, { decision: "APPROVE" })
      const second = yield* run.events.waitFor(
        (r) => pendingBudgetExtensions(r)[0],
        (e) => (e._tag === "BudgetExtensionRequested" ? e : undefined)
      )
      expect(second).toMatchObject({ dimension: "llmCalls", limit: 4, used: 4, requestId: "budget-llmCalls-2" })
      yield* respond(run.events, second.requestId, { decision: "APPROVE", input: { maxLlmCalls: 100 } })
      expect((yield* Fiber.join(fiber)).status).toBe("CONVERGED")
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.effect("REJECT: the run ends budget_exhausted as a run that does not ask does", () =>
    Effect.gen(function*() {
      const plain = yield* Effect.flatMap(prepare({ ...task, budget: { maxLlmCalls: 4 } }), (r) => r.execute)
      const { fiber, request, run } = yield* untilAsked({ maxLlmCalls: 4 })
      yield* respond(run.events, request.requestId, { decision: "REJECT", reason: "enough" })
      const result = yield* Fiber.join(fiber)
      expect(result.terminationReason).toBe("budget_exhausted")
      expect(result.status).toBe(plain.status)
      expect(result.ttlExpiration?.exhausted).toBe("llmCalls")
      expect(result.usage.llmCalls).toBe(plain.usage.llmCalls)
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.effect("caps that do not raise the cap that stopped the run are refused, coded, and the request stays open", () =>
    Effect.gen(function*() {
      const { fiber, request, run } = yield* untilAsked({ maxLlmCalls: 4 })
      for (
        const [input, reason] of [
          [{ maxLlmCalls: 3 }, /above 4/],
          [{ maxTokens: 900000 }, /give maxLlmCalls/],
          [{ maxLlmCalls: "many" }, /not a budget/],
          [{ maxLlmCalls: 9, deadlineMs: 3 }, /not a budget/],
          [{}, /at least one cap/]
        ] as const
      ) {
        const refused = yield* Effect.either(respond(run.events, request.requestId, { decision: "EDIT", input }))
        expect(Either.isLeft(refused) && refused.left._tag).toBe("ApprovalInputError")
        expect(Either.isLeft(refused) && refused.left.message).toMatch(reason)
      }
      expect(pendingBudgetExtensions(run.events.record()).map((r) => r.requestId)).toEqual([request.requestId])
      yield* respond(run.events, request.requestId, { decision: "EDIT", input: { maxLlmCalls: 40 } })
      expect((yield* Fiber.join(fiber)).status).toBe("CONVERGED")
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.effect("maxSteps too small: the step waits for more; a run that is not interactive stops as before", () =>
    Effect.gen(function*() {
      const plain = yield* Effect.flatMap(prepare({ ...task, budget: { maxSteps: 1 } }), (r) => r.execute)
      expect(plain.terminationReason).toBe("budget_exhausted")
      const { fiber, request, run } = yield* untilAsked({ maxSteps: 1 })
      expect(request).toMatchObject({ dimension: "steps", limit: 1, used: 1 })
      yield* respond(run.events, request.requestId, { decision: "APPROVE", input: { maxSteps: 10 } })
      expect((yield* Fiber.join(fiber)).status).toBe("CONVERGED")
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))

  it.live("unanswered within approvalTimeoutMs: rejected, the run stops at its budget", () =>
    Effect.gen(function*() {
      const { fiber } = yield* untilAsked({ maxLlmCalls: 4 }, { approvalTimeoutMs: 50 })
      const result = yield* Fiber.join(fiber)
      expect(result.terminationReason).toBe("budget_exhausted")
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))
})

/** Converges on its second execution pass: the first is judged incomplete and step s2 is refined. */
const secondPassScript = () => ({
  ...convergingScript(),
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false), verdict(true)],
  [PromptId.RECURSIVE_REFINEMENT_USER]: [{
    output: {
      actions: [{
        actionType: "MODIFY",
        targetStepId: "s2",
        newStep: { stepId: "s2", description: "Explain the product of 6 and 7 in one sentence", dependencies: ["s1"] },
        justification: "incomplete"
      }]
    }
  }]
})

describe("more passes instead of a TTL expiration (#35: the guard would refuse a pass)", () => {
  it.effect("the last pass its TTL allowed did not converge: the run asks for more passes; APPROVE refines and converges", () =>
    Effect.gen(function*() {
      const plain = yield* Effect.flatMap(prepare({ ...task, budget: { ttl: 1 } }), (r) => r.execute).pipe(
        Effect.provide(scripted(secondPassScript()).layer)
      )
      expect(plain.terminationReason).toBe("ttl_expired")
      expect(plain.status).toBe("NOT_CONVERGED")
      const { fiber, request, run } = yield* untilAsked({ ttl: 1 })
      expect(request).toMatchObject({
        dimension: "ttl",
        limit: 1,
        used: 1,
        proposed: { ttl: 2 },
        requestId: "budget-ttl-pass-1"
      })
      expect(request.needs).toMatch(/pass 1 did not converge and was the last of the 1 its TTL allowed/)
      // nothing refined while it waits
      expect(run.events.record().passes.some((p) => p.phases.includes("REFINE"))).toBe(false)
      yield* respond(run.events, request.requestId, { decision: "APPROVE" })
      const result = yield* Fiber.join(fiber)
      expect(result.status).toBe("CONVERGED")
      expect(executionPasses(result)).toBe(2)
      expect(result.finalAnswer?.answerText).toBe("42: six sevens")
    }).pipe(Effect.provide(scripted(secondPassScript()).layer)))

  it.effect("REJECT: it ends ttl_expired as a run that does not ask does", () =>
    Effect.gen(function*() {
      const { fiber, request, run } = yield* untilAsked({ ttl: 1 })
      yield* respond(run.events, request.requestId, { decision: "REJECT", reason: "enough" })
      const result = yield* Fiber.join(fiber)
      expect(result.terminationReason).toBe("ttl_expired")
      expect(result.status).toBe("NOT_CONVERGED")
    }).pipe(Effect.provide(scripted(secondPassScript()).layer)))

  it.effect("a restart right after the answer (its evaluation made again) keeps the passes given and does not ask again", () =>
    Effect.gen(function*() {
      const { fiber, request, run } = yield* untilAsked({ ttl: 1 })
      yield* respond(run.events, request.requestId, { decision: "APPROVE", input: { ttl: 3 } })
      expect((yield* Fiber.join(fiber)).status).toBe("CONVERGED")
      const log = yield* Effect.flatMap(RunStore, (s) => s.events(run.runId))
      const answered = log.find((e) => e._tag === "ApprovalAnswered")!
      // resumed as a restart does, from the log as it stood once the answer was stored
      const resumed = yield* Effect.flatMap(Fork.fork(run.runId, answered.seq), (p) => p.execute)
      expect(resumed.status).toBe("CONVERGED")
      expect(executionPasses(resumed)).toBe(2)
      const forkLog = yield* Effect.flatMap(RunStore, (s) => s.events(resumed.runId))
      expect(forkLog.filter((e) => e._tag === "BudgetExtensionRequested")).toHaveLength(1)
      expect(forkLog.filter((e) => e._tag === "ConvergenceAssessed").length).toBeGreaterThanOrEqual(3)
    }).pipe(Effect.provide(Layer.merge(scripted(secondPassScript()).layer, Database.layer({ dataDir: "memory" })))))
})
