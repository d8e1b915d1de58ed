import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { respond } from "../../src/kernel/Approval.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { pendingApprovals } from "../../src/record/RunRecord.js"
import { prepare } from "../../src/run/Run.js"
import { offline, scripted } from "../support/engine.js"
import { answer, noIssues, planOut, profile, reasoned, verdict } from "../support/scripts.js"

const toolCalls = (events: ReadonlyArray<any>) =>
  events.filter((e) => e._tag === "ToolInvoked").map((e) => ({ stepId: e.stepId, input: e.input, output: e.output }))

const chained = (second: unknown, deps: Array<string> = ["s1"]) => ({
  [PromptId.TASKPROFILE_INFERENCE_USER]: [profile(1)],
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    { id: "s1", d: "Compute 17 + 25 with the calculator", tool: "calculator", input: { expression: "17 + 25" } },
    { id: "s2", d: "Double the sum with the calculator", tool: "calculator", input: second, deps }
  ], "Double the sum of 17 and 25")],
  [PromptId.VALIDATION_SEMANTIC_USER]: [noIssues],
  [PromptId.REASONING_STEP_USER]: [reasoned("17 + 25 = 42"), reasoned("twice the sum is 84")],
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(true)],
  [PromptId.ANSWER_SYNTHESIS_USER]: [answer("84", ["s1", "s2"])]
})

const run = (script: ReturnType<typeof chained>) =>
  Effect.gen(function*() {
    const p = yield* prepare({ task: "Double the sum of 17 and 25", mode: "FULL", budget: { ttl: 1 } })
    const result = yield* p.execute
    return { result, events: yield* p.events.log }
  }).pipe(Effect.provide(scripted(script).layer))

describe("references to earlier results in tool inputs (#14.1)", () => {
  it.effect("{{s1}} * 2 reaches the calculator as 42 * 2; the trace shows the resolved input", () =>
    Effect.gen(function*() {
      const { events, result } = yield* run(chained({ expression: "{{s1}} * 2" }))
      expect(result.status).toBe("CONVERGED")
      expect(toolCalls(events)).toEqual([
        { stepId: "s1", input: { expression: "17 + 25" }, output: { expression: "17 + 25", value: 42 } },
        { stepId: "s2", input: { expression: "42 * 2" }, output: { expression: "42 * 2", value: 84 } }
      ])
    }))

  it.effect("{{s1.value}} reads a field of the tool's output; a whole-string reference keeps its type", () =>
    Effect.gen(function*() {
      const { events } = yield* run(chained({ expression: "({{s1.value}}) * 2" }))
      expect(toolCalls(events)[1]!.input).toEqual({ expression: "(42) * 2" })
      const typed = yield* run(chained({ expression: "{{s1.expression}}" }))
      expect(toolCalls(typed.events)[1]!.input).toEqual({ expression: "17 + 25" })
    }))

  it.effect("a reference to a step that is not a dependency, or to no step, is a consistency issue before execution", () =>
    Effect.gen(function*() {
      const notDependency = yield* run(chained({ expression: "{{s1}} * 2" }, []))
      const report = notDependency.events.find((e: any) => e._tag === "ValidationReported")! as any
      expect(report.report.issues).toContainEqual(expect.objectContaining({
        type: "consistency",
        location: { stepId: "s2" },
        description: "step s2's tool input uses the result of s1 ({{s1}}) but does not depend on it"
      }))
      const nowhere = yield* run(chained({ expression: "{{s9.value}} * 2" }))
      const issues = (nowhere.events.find((e: any) => e._tag === "ValidationReported")! as any).report.issues
      expect(issues).toContainEqual(expect.objectContaining({
        type: "consistency",
        location: { stepId: "s2" },
        description: "step s2's tool input refers to {{s9.value}}, which names no step of the plan"
      }))
      // when it runs anyway, the step fails saying why, and the calculator never sees the braces
      const failed = nowhere.events.find((e: any) => e._tag === "StepFinished" && e.stepId === "s2") as any
      expect(failed.status).toBe("failed")
      expect(failed.error).toContain("{{s9.value}} names no step of the plan")
      expect(toolCalls(nowhere.events).map((c) => c.stepId)).toEqual(["s1"])
    }))

  it.effect("the offline model chains arithmetic through a reference: 17 + 25, then × 3, converges on 126", () =>
    Effect.gen(function*() {
      const p = yield* prepare({ task: "Add 17 and 25, then multiply the result by 3", mode: "FULL" })
      const result = yield* p.execute
      expect(result.status).toBe("CONVERGED")
      expect(result.finalAnswer?.answerText).toContain("126")
      expect(toolCalls(yield* p.events.log)).toEqual([
        { stepId: "s1", input: { expression: "17 + 25" }, output: { expression: "17 + 25", value: 42 } },
        { stepId: "s2", input: { expression: "42 * 3" }, output: { expression: "42 * 3", value: 126 } }
      ])
    }).pipe(Effect.provide(offline)))

  it.effect("a call waiting for approval shows the person the resolved input, and runs with it", () =>
    Effect.gen(function*() {
      const run = yield* prepare({
        task: "Store the sum of 20 and 22",
        mode: "FULL",
        approvalTools: ["memory.write"],
        budget: { ttl: 1 }
      })
      const fiber = yield* Effect.fork(run.execute)
      const request = yield* run.events.waitFor(
        (r) => pendingApprovals(r)[0],
        (e) => (e._tag === "ApprovalRequested" ? e : undefined)
      )
      expect(request.input).toEqual({ key: "sum", value: 42 })
      yield* respond(run.events, request.requestId, { decision: "APPROVE" })
      yield* Fiber.join(fiber)
      const written = toolCalls(yield* run.events.log).find((c) => c.stepId === "s2")
      expect(written?.input).toEqual({ key: "sum", value: 42 })
    }).pipe(Effect.provide(
      scripted({
        [PromptId.PLAN_GENERATION_USER]: [planOut([
          { id: "s1", d: "Add 20 and 22 with the calculator", tool: "calculator", input: { expression: "20 + 22" } },
          {
            id: "s2",
            d: "Store the sum under sum",
            tool: "memory.write",
            input: { key: "sum", value: "{{s1}}" },
            deps: ["s1"]
          }
        ], "Store the sum of 20 and 22")]
      }).layer
    )))
})
