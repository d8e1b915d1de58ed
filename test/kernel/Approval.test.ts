import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Schema, TestClock } from "effect"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { guide, pending, respond } from "../../src/kernel/Approval.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { pendingApprovals, pendingGuidance } from "../../src/record/RunRecord.js"
import { resultOf } from "../../src/record/RunResult.js"
import { prepare, type PreparedRun } from "../../src/run/Run.js"
import { tool } from "../../src/tools/ToolRegistry.js"
import { scripted } from "../support/engine.js"
import { ledgerTool } from "../support/fixtures.js"
import { convergingScript, planOut, refiningForever } from "../support/scripts.js"

const written: Array<string> = []
const ledger = ledgerTool(written)
/** A tool that asks for approval itself, for large amounts only. */
const payment = tool({
  name: "pay",
  description: "Pays an amount.",
  input: Schema.Struct({ amount: Schema.Number }),
  output: Schema.Struct({ paid: Schema.Number }),
  timeoutMs: 5_000,
  idempotent: false,
  needsApproval: (input) => (input as { amount: number }).amount > 100,
  run: ({ amount }) => Effect.succeed({ paid: amount })
})

const engine = (steps: Parameters<typeof planOut>[0]) =>
  scripted({ ...convergingScript(), [PromptId.PLAN_GENERATION_USER]: [planOut(steps)] }, { tools: [ledger, payment] })
    .layer

const debit = [
  { id: "s1", d: "Write the record 'debit' to the ledger", tool: "ledger.write", input: { record: "debit" } },
  { id: "s2", d: "Explain the record", deps: ["s1"] }
]

/** Starts the run in a fiber and waits until it asks for approval; the run and its one open request. */
const untilAsked = (input: Record<string, unknown>) =>
  Effect.gen(function*() {
    const run = yield* prepare({ task: "Record a debit and explain it", mode: "FULL", ...input })
    const fiber = yield* Effect.fork(run.execute)
    const request = yield* run.events.waitFor(
      (r) => pendingApprovals(r)[0],
      (e) => (e._tag === "ApprovalRequested" ? e : undefined)
    )
    return { run, fiber, request }
  })

const tags = (run: PreparedRun) => Effect.map(run.events.log, (log) => log.map((e: RunEvent) => e._tag))

describe("approvals", () => {
  it.effect("a call that needs approval waits (AWAITING_INPUT) and runs once approved", () =>
    Effect.gen(function*() {
      written.length = 0
      const { fiber, request, run } = yield* untilAsked({ approvalTools: ["ledger.write"] })
      expect(request).toMatchObject({ stepId: "s1", tool: "ledger.write", input: { record: "debit" } })
      expect(run.events.record().requests.size).toBe(1)
      expect(pending(run.events).map((r) => r.requestId)).toEqual([request.requestId])
      expect(written).toEqual([]) // not before the answer
      expect(resultOf(run.events.record()).status).toBe("AWAITING_INPUT")
      yield* respond(run.events, request.requestId, { decision: "APPROVE", by: "u1" })
      const result = yield* Fiber.join(fiber)
      expect(result.status).toBe("CONVERGED")
      expect(written).toEqual(["debit"])
      const order = yield* tags(run)
      expect(order.indexOf("ApprovalRequested")).toBeLessThan(order.indexOf("ApprovalAnswered"))
      expect(order.indexOf("ApprovalAnswered")).toBeLessThan(order.indexOf("ToolInvoked"))
      // a second answer is refused and changes nothing
      const again = yield* Effect.either(respond(run.events, request.requestId, { decision: "REJECT" }))
      expect(Either.isLeft(again) && again.left._tag).toBe("RunNotWaitingError")
    }).pipe(Effect.provide(engine(debit))))

  it.effect("while a call waits for approval, the steps that do not depend on it go on (parallelism 1)", () =>
    Effect.gen(function*() {
      written.length = 0
      const { fiber, request, run } = yield* untilAsked({ approvalTools: ["ledger.write"] })
      // s2 needs no approval and does not depend on s1: it finishes while s1 waits
      yield* run.events.waitFor(
        (r) => r.attempt?.finished.get("s2"),
        (e) => (e._tag === "StepFinished" && e.stepId === "s2" ? e : undefined)
      )
      expect(pending(run.events).map((r) => r.stepId)).toEqual(["s1"])
      yield* respond(run.events, request.requestId, { decision: "APPROVE" })
      expect((yield* Fiber.join(fiber)).status).toBe("CONVERGED")
      const order = (yield* run.events.log).flatMap((e) => e._tag === "StepFinished" ? [e.stepId] : [])
      expect(order).toEqual(["s2", "s1", "s3"])
      expect(written).toEqual(["debit"])
    }).pipe(Effect.provide(engine([
      { id: "s1", d: "Write the record 'debit' to the ledger", tool: "ledger.write", input: { record: "debit" } },
      { id: "s2", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expression: "6 * 7" } },
      { id: "s3", d: "Explain the record", deps: ["s1"] }
    ]))))

  it.effect("REJECT fails the step with the reason and never calls the tool; a second answer is a coded error", () =>
    Effect.gen(function*() {
      written.length = 0
      const { fiber, request, run } = yield* untilAsked({ approvalTools: ["*"] })
      yield* respond(run.events, request.requestId, { decision: "REJECT", reason: "not this ledger" })
      const second = yield* Effect.either(respond(run.events, request.requestId, { decision: "APPROVE" }))
      expect(Either.isLeft(second) && second.left._tag).toBe("ApprovalAlreadyAnsweredError")
      const result = yield* Fiber.join(fiber)
      expect(written).toEqual([])
      const s1 = result.history.passes.flatMap((p) => Object.entries(p.executionResults)).find(([id]) => id === "s1")
      expect(s1?.[1].error).toContain("rejected by the run's owner: not this ledger")
    }).pipe(Effect.provide(engine(debit))))

  it.effect("EDIT runs the call with the edited input; an input the tool refuses is a coded error, the request stays open", () =>
    Effect.gen(function*() {
      written.length = 0
      const { fiber, request, run } = yield* untilAsked({ approvalTools: ["ledger.write"] })
      const bad = yield* Effect.either(
        respond(run.events, request.requestId, { decision: "EDIT", input: { record: "" } })
      )
      expect(Either.isLeft(bad) && bad.left._tag).toBe("ApprovalInputError")
      expect(pending(run.events)).toHaveLength(1)
      const unknown = yield* Effect.either(respond(run.events, "nope", { decision: "APPROVE" }))
      expect(Either.isLeft(unknown) && unknown.left._tag).toBe("ApprovalNotFoundError")
      yield* respond(run.events, request.requestId, { decision: "EDIT", input: { record: "credit" } })
      expect((yield* Fiber.join(fiber)).status).toBe("CONVERGED")
      expect(written).toEqual(["credit"])
    }).pipe(Effect.provide(engine(debit))))

  it.effect("cancelling a run that waits for approval ends it CANCELLED, the call never made", () =>
    Effect.gen(function*() {
      written.length = 0
      const { fiber, run } = yield* untilAsked({ approvalTools: ["ledger.write"] })
      yield* Fiber.interrupt(fiber)
      const log = yield* run.events.log
      expect(log.at(-1)).toMatchObject({ _tag: "RunFinished", status: "CANCELLED" })
      expect(log.some((e) => e._tag === "ToolInvoked")).toBe(false)
      expect(log.find((e) => e._tag === "StepAbandoned")).toMatchObject({ stepId: "s1" })
      expect(written).toEqual([])
    }).pipe(Effect.provide(engine(debit))))

  it.effect("the deadline keeps running while a run waits, unless pauseDeadlineWhileWaiting", () =>
    Effect.gen(function*() {
      const outcome = (pause: boolean) =>
        Effect.gen(function*() {
          const budget = { deadlineMs: 500 }
          const { fiber, request, run } = yield* untilAsked({
            approvalTools: ["ledger.write"],
            budget,
            pauseDeadlineWhileWaiting: pause
          })
          // the person answers 800 ms (of the test's clock) later
          yield* TestClock.adjust("800 millis")
          yield* Effect.either(respond(run.events, request.requestId, { decision: "APPROVE" }))
          return yield* Fiber.join(fiber)
        })
      const kept = yield* outcome(false)
      expect(kept.terminationReason).toBe("budget_exhausted")
      expect(kept.error).toContain("deadline of 500 ms reached")
      const paused = yield* outcome(true)
      expect(paused.status).toBe("CONVERGED")
    }).pipe(Effect.provide(engine(debit))))

  it.live("approvalTimeoutMs rejects a request nobody answered, with that reason", () =>
    Effect.gen(function*() {
      written.length = 0
      const run = yield* prepare({
        task: "Record a debit and explain it",
        mode: "FULL",
        approvalTools: ["ledger.write"],
        approvalTimeoutMs: 20
      })
      const result = yield* run.execute
      expect(written).toEqual([])
      const answered = (yield* run.events.log).find((e) => e._tag === "ApprovalAnswered")
      expect(answered).toMatchObject({ decision: "REJECT", by: "timeout", reason: "not answered within 20 ms" })
      expect(result.status).not.toBe("AWAITING_INPUT")
    }).pipe(Effect.provide(engine(debit)), Effect.orDie), { timeout: 10_000 })

  it.effect("a tool can ask for approval itself, for some inputs only", () =>
    Effect.gen(function*() {
      const { fiber, request, run } = yield* untilAsked({})
      expect(request).toMatchObject({ stepId: "s2", tool: "pay", input: { amount: 500 } })
      yield* respond(run.events, request.requestId, { decision: "APPROVE" })
      yield* Fiber.join(fiber)
      const asked = (yield* run.events.log).filter((e) => e._tag === "ApprovalRequested")
      expect(asked).toHaveLength(1) // the payment of 5 went through without asking
    }).pipe(Effect.provide(engine([
      { id: "s1", d: "Pay 5 for the stamp", tool: "pay", input: { amount: 5 } },
      { id: "s2", d: "Pay 500 for the rent", tool: "pay", input: { amount: 500 }, deps: ["s1"] },
      { id: "s3", d: "Explain the payments", deps: ["s2"] }
    ]))))

  it.effect("an interactive run asks for guidance where it would need manual intervention; the guidance reaches the refinement prompt", () => {
    const { calls, layer } = scripted({
      ...convergingScript(),
      [PromptId.PLAN_GENERATION_USER]: [planOut(debit)],
      ...refiningForever("s2")
    }, { tools: [ledger, payment] })
    return Effect.gen(function*() {
      const run = yield* prepare({
        task: "Record a debit and explain it",
        mode: "FULL",
        interactive: true,
        budget: { ttl: 6 }
      })
      const fiber = yield* Effect.fork(run.execute)
      const request = yield* run.events.waitFor(
        (r) => pendingGuidance(r)[0],
        (e) => (e._tag === "GuidanceRequested" ? e : undefined)
      )
      expect(request).toMatchObject({ stepId: "s2", reason: expect.stringContaining("refinement limit") })
      expect(resultOf(run.events.record()).status).toBe("AWAITING_INPUT")
      const empty = yield* Effect.either(guide(run.events, request.requestId, "  "))
      expect(Either.isLeft(empty) && empty.left._tag).toBe("ApprovalInputError")
      const refinementsBefore = calls.filter((c) => c.promptId === PromptId.RECURSIVE_REFINEMENT_USER).length
      yield* guide(run.events, request.requestId, "explain it as double-entry bookkeeping")
      const result = yield* Fiber.join(fiber)
      const later = calls.filter((c) => c.promptId === PromptId.RECURSIVE_REFINEMENT_USER).slice(refinementsBefore)
      expect(later.length).toBeGreaterThan(0)
      expect((later[0]!.input as { guidance: Array<string> }).guidance)
        .toEqual(["on s2: explain it as double-entry bookkeeping"])
      expect(result.manualInterventions.map((m) => m.stepId)).not.toContain("s2") // asked, not left as an advisory
    }).pipe(Effect.provide(layer))
  })
})
