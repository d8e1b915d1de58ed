import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { prepare } from "../../src/run/Run.js"
import { offline, scripted } from "../support/engine.js"
import { profile } from "../support/scripts.js"

/**
 * Model calls spent where they pay (#41 items 1–3): a simple iteration's tool step takes its tool's result with no
 * reasoning call, the deterministic checks decide the plan's and the pass's review and the convergence when they can,
 * and AUTO escalates only when more depth can help. FULL keeps every call of the loop. Each saving is guarded both
 * ways: what it skips (counted), and what must still ask the model.
 */

const runWith = (layer: typeof offline, input: Record<string, unknown>) =>
  Effect.gen(function*() {
    const prepared = yield* prepare({ mode: "AUTO", ...input })
    const result = yield* prepared.execute
    return { result, log: yield* prepared.events.log }
  }).pipe(Effect.provide(layer))

const prompts = (log: ReadonlyArray<RunEvent>) => log.flatMap((e) => (e._tag === "LlmCalled" ? [e.promptId] : []))
const ofTag = <T extends RunEvent["_tag"]>(log: ReadonlyArray<RunEvent>, tag: T) =>
  log.filter((e): e is Extract<RunEvent, { _tag: T }> => e._tag === tag)

const sixTimesSeven = (description: string, expression = "6 * 7", more: Record<string, unknown> = {}) => ({
  plan_generation_user: [{
    output: {
      goal: "Compute 6 * 7",
      steps: [{ stepId: "s1", description, tool: "calculator", toolInput: { expression }, ...more }]
    }
  }]
})

describe("a simple iteration spends model calls where they pay (#41)", () => {
  it.effect("'Compute 17 + 25' converges in 1 call (the plan, its answer filled in), 42 in the answer, decided by the checks", () =>
    Effect.gen(function*() {
      const { log, result } = yield* runWith(offline, { task: "Compute 17 + 25" })
      expect(result.status).toBe("CONVERGED")
      expect(result.finalAnswer?.answerText).toContain("42")
      expect(prompts(log)).toEqual(["plan_generation_user"])
      expect(ofTag(log, "StepFinished").map((e) => e.outputBy)).toEqual(["tool"])
      expect(ofTag(log, "ValidationReported").map((e) => e.report.decidedBy)).toEqual(["checks", "checks"])
      expect(ofTag(log, "ConvergenceAssessed").map((e) => e.assessment.decidedBy)).toEqual(["checks"])
    }))

  it.effect("a chain of two calculator steps: at most 3 calls, 126 in the answer", () =>
    Effect.gen(function*() {
      const { log, result } = yield* runWith(offline, { task: "Add 17 and 25, then multiply the result by 3" })
      expect(result.status).toBe("CONVERGED")
      expect(result.finalAnswer?.answerText).toContain("126")
      expect(prompts(log).length).toBeLessThanOrEqual(3)
    }))

  it.effect("a tool step that asks to explain still gets its reasoning call", () =>
    Effect.gen(function*() {
      const { layer } = scripted(sixTimesSeven("Compute 6 * 7 with the calculator and explain what the product means"))
      const { log } = yield* runWith(layer, { task: "Compute 6 * 7" })
      expect(prompts(log)).toContain("reasoning_step_user")
      expect(ofTag(log, "StepFinished").map((e) => e.outputBy)).toEqual(["model"])
    }))

  it.effect("a failed step still gets the model's review and assessment, and never passes by the checks", () =>
    Effect.gen(function*() {
      const { layer } = scripted(sixTimesSeven("Compute 6 * 7 with the calculator", "6 * / 7"))
      const { log, result } = yield* runWith(layer, { task: "Compute 6 * 7", mode: "SIMPLE", simpleIterations: 1 })
      expect(result.status).not.toBe("CONVERGED")
      const calls = prompts(log)
      expect(calls).toContain("validation_semantic_user")
      expect(calls).toContain("convergence_assessment_user")
      expect(ofTag(log, "ConvergenceAssessed").every((e) => e.assessment.decidedBy === "model")).toBe(true)
    }))

  it.effect("a deterministic issue in the plan still gets the model's review", () =>
    Effect.gen(function*() {
      // the plan leaves the task's 3 out (completeness, MEDIUM): the model reviews it
      const { layer } = scripted(sixTimesSeven("Compute 6 * 7 with the calculator"))
      const { log } = yield* runWith(layer, { task: "What is 6 * 7 plus 3?", mode: "SIMPLE", simpleIterations: 1 })
      const planReview = ofTag(log, "ValidationReported")[0]!.report
      expect(planReview.issues.map((i) => i.type)).toContain("completeness")
      expect(planReview.decidedBy).toBe("model")
      expect(prompts(log).filter((p) => p === "validation_semantic_user").length).toBeGreaterThanOrEqual(1)
    }))

  it.effect("an answer predicate that fails blocks the checks' convergence: the model is asked", () =>
    Effect.gen(function*() {
      const { log, result } = yield* runWith(offline, {
        task: "Compute 17 + 25",
        mode: "SIMPLE",
        simpleIterations: 1,
        criteria: { answerMatches: "^99$" }
      })
      expect(result.status).not.toBe("CONVERGED")
      expect(prompts(log)).toContain("convergence_assessment_user")
    }))

  it.effect("a question needing no tool: the plan's one step answers it, no synthesis call (2 calls); criteria on the answer still synthesize", () =>
    Effect.gen(function*() {
      const script = () => ({
        plan_generation_user: [{
          output: { goal: "Name the capital", steps: [{ stepId: "s1", description: "Name the capital of France" }] }
        }],
        reasoning_step_user: [{
          output: { stepOutput: "Paris is the capital of France.", clarityState: "CLEAR", handoffToNext: "Paris" }
        }]
      })
      const { log, result } = yield* runWith(scripted(script()).layer, { task: "Name the capital of France." })
      expect(result.status).toBe("CONVERGED")
      // a task needing no tool: planned without the catalog (planning/ToolCatalog, #58)
      expect(prompts(log)).toEqual(["plan_direct_user", "reasoning_step_user"])
      expect(result.finalAnswer?.answerText).toBe("Paris is the capital of France.")
      expect(result.finalAnswer?.notes).toContain("no synthesis call")
      const withCriteria = yield* runWith(scripted(script()).layer, {
        task: "Name the capital of France.",
        criteria: { answerMentions: ["Paris"] }
      })
      expect(prompts(withCriteria.log)).toContain("answer_synthesis_user")
    }))

  it.effect("a step the planner answered as it planned: one call in a simple iteration; FULL still reasons on it", () =>
    Effect.gen(function*() {
      const script = () => ({
        plan_generation_user: [{
          // (no goal: the task is the goal)
          output: {
            steps: [{
              stepId: "s1",
              description: "Name the capital of France",
              answer: "Paris is the capital of France."
            }]
          }
        }],
        reasoning_step_user: [{
          output: { stepOutput: "Paris, by reasoning.", clarityState: "CLEAR", handoffToNext: "Paris" }
        }]
      })
      const { log, result } = yield* runWith(scripted(script()).layer, { task: "Name the capital of France." })
      expect(result.status).toBe("CONVERGED")
      expect(prompts(log)).toEqual(["plan_direct_user"])
      expect(result.finalAnswer?.answerText).toBe("Paris is the capital of France.")
      expect(ofTag(log, "StepFinished").map((e) => e.outputBy)).toEqual(["plan"])
      expect(result.plan?.goal).toBe("Name the capital of France.")
      // FULL: the mode for depth asks the model to reason on the step all the same
      const full = yield* runWith(scripted(script()).layer, { task: "Name the capital of France.", mode: "FULL" })
      expect(prompts(full.log)).toContain("reasoning_step_user")
      expect(ofTag(full.log, "StepFinished").map((e) => e.outputBy)).toEqual(["model"])
      // a step with a tool is the tool's: an answer beside it is not taken
      const withTool = yield* runWith(
        scripted(sixTimesSeven("Compute 6 * 7 with the calculator", "6 * 7", { answer: "41" })).layer,
        { task: "Compute 6 * 7" }
      )
      expect(ofTag(withTool.log, "StepFinished").map((e) => [e.outputBy, e.stepOutput])).toEqual([["tool", "42"]])
    }))

  it.effect("a plan that carries its answer ({{s1}} for a result): one call, the result filled in; otherwise a synthesis call", () =>
    Effect.gen(function*() {
      const planned = (answer: string, expression = "6 * 7") => ({
        plan_generation_user: [{
          output: {
            goal: "Compute 6 * 7",
            steps: [{
              stepId: "s1",
              description: "Compute it with the calculator",
              tool: "calculator",
              toolInput: { expression }
            }],
            answer
          }
        }]
      })
      const { log, result } = yield* runWith(scripted(planned("6 × 7 = {{s1}}.")).layer, { task: "Compute 6 * 7" })
      expect(result.status).toBe("CONVERGED")
      expect(prompts(log)).toEqual(["plan_generation_user"])
      expect(result.finalAnswer?.answerText).toBe("6 × 7 = 42.")
      expect(result.finalAnswer?.notes).toContain("no synthesis call")
      // a reference that names no step, or an answer with no reference: the model writes the answer
      for (const answer of ["6 × 7 = {{s9}}.", "6 × 7 = 41."]) {
        const other = yield* runWith(scripted(planned(answer)).layer, { task: "Compute 6 * 7" })
        expect(prompts(other.log)).toContain("answer_synthesis_user")
        expect(other.result.finalAnswer?.answerText).not.toBe(answer)
      }
      // a step that failed: no answer from the template
      const failed = yield* runWith(scripted(planned("It is {{s1}}.", "6 * ")).layer, { task: "Compute 6 * 7" })
      expect(failed.result.finalAnswer?.answerText ?? "").not.toMatch(/^It is/)
      // FULL synthesizes
      const full = yield* runWith(scripted(planned("6 × 7 = {{s1}}.")).layer, { task: "Compute 6 * 7", mode: "FULL" })
      expect(prompts(full.log)).toContain("answer_synthesis_user")
    }))

  it.effect("the forecast of a simple iteration expects the calls the economy makes (FULL: every call of the loop)", () =>
    Effect.gen(function*() {
      for (const task of ["Compute 17 + 25", "Compute (17 + 25) * 3 and explain the result"]) {
        const { result } = yield* runWith(offline, { task })
        expect(result.forecast?.expected.llmCalls, task).toBe(result.usage.llmCalls)
        expect(result.forecast!.worstCase.llmCalls).toBeGreaterThan(result.usage.llmCalls)
      }
      const full = yield* runWith(offline, { task: "Compute 17 + 25", mode: "FULL" })
      expect(full.result.forecast?.expected.llmCalls).toBe(full.result.usage.llmCalls)
    }))

  it.effect("FULL keeps every call of the loop: 7 for 'Compute 17 + 25' (profile, plan, review, reasoning, review, assessment, answer)", () =>
    Effect.gen(function*() {
      const { log, result } = yield* runWith(offline, { task: "Compute 17 + 25", mode: "FULL" })
      expect(result.status).toBe("CONVERGED")
      expect(prompts(log)).toEqual([
        "taskprofile_inference_user",
        "plan_generation_user",
        "validation_semantic_user",
        "reasoning_step_user",
        "validation_semantic_user",
        "convergence_assessment_user",
        "answer_synthesis_user"
      ])
    }))

  it.effect("a model that abstains: the iterations stop when they repeat, and AUTO does not escalate (the summary says why)", () =>
    Effect.gen(function*() {
      const { log, result } = yield* runWith(offline, { task: "What is the capital of France?" })
      expect(result.status).toBe("NOT_CONVERGED")
      expect(ofTag(log, "Escalated")).toEqual([])
      expect(result.simple.iterations).toHaveLength(2)
      expect(result.simple.failureSummary?.cause).toBe("abstained")
      expect(result.simple.failureSummary?.summary).toContain(
        "the model said on every iteration that it cannot do this"
      )
      expect(result.usage.llmCalls).toBeLessThanOrEqual(10)
    }))

  it.effect("a tool that gives the same refusal twice: the iterations stop, no escalation, the cause named", () =>
    Effect.gen(function*() {
      const { layer } = scripted({
        ...sixTimesSeven("Compute 6 * 7 with the calculator", "6 * / 7"),
        plan_generation_user: [sixTimesSeven("Compute 6 * 7 with the calculator", "6 * / 7").plan_generation_user[0]!]
      })
      const { log, result } = yield* runWith(layer, { task: "Compute 6 * 7" })
      expect(ofTag(log, "Escalated")).toEqual([])
      expect(result.simple.iterations).toHaveLength(2)
      expect(result.simple.failureSummary?.cause).toBe("tool_refused")
    }))

  it.effect("FULL: a pass that fails as the one before did (a tool refusing the same input) stops the run", () =>
    Effect.gen(function*() {
      // the refinement rewords the step but keeps its call: the calculator refuses it the same way every pass
      const { layer } = scripted({
        ...sixTimesSeven("Compute 6 * 7 with the calculator", "6 * / 7"),
        taskprofile_inference_user: [profile(5, 0.3)],
        recursive_refinement_user: [{
          output: {
            actions: [{
              actionType: "MODIFY",
              targetStepId: "s1",
              newStep: {
                stepId: "s1",
                description: "Compute 6 * 7 with the calculator, carefully",
                tool: "calculator",
                toolInput: { expression: "6 * / 7" }
              },
              justification: "try again"
            }]
          }
        }]
      })
      const { log, result } = yield* runWith(layer, { task: "Compute 6 * 7", mode: "FULL", budget: { ttl: 6 } })
      expect(result.terminationReason).toBe("stalled")
      expect(result.error).toMatch(
        /^pass 2 failed as pass 1 did \(s1(\.r2)?: calculator: .*\): another pass would repeat it$/
      )
      expect(ofTag(log, "PassStarted").map((e) => e.passNumber)).toEqual([0, 1, 2])
    }))

  it.effect("FULL: failures that change from pass to pass go on to the TTL", () =>
    Effect.gen(function*() {
      const { layer } = scripted({
        taskprofile_inference_user: [profile(5, 0.3)],
        plan_generation_user: [{
          output: {
            goal: "Compute",
            steps: [{
              stepId: "s1",
              description: "Compute 6 * 7 with the calculator",
              tool: "calculator",
              toolInput: { expression: "6 * / 7" }
            }]
          }
        }],
        recursive_refinement_user: [1, 2, 3].map((n) => ({
          output: {
            actions: [{
              actionType: "MODIFY",
              targetStepId: "s1",
              newStep: {
                stepId: "s1",
                description: "Compute again",
                tool: "calculator",
                toolInput: { expression: `6 * / ${n}` }
              },
              justification: "another expression"
            }]
          }
        }))
      })
      const { log, result } = yield* runWith(layer, { task: "Compute 6 * 7", mode: "FULL", budget: { ttl: 3 } })
      expect(result.terminationReason).not.toBe("stalled")
      expect(ofTag(log, "PassStarted").length).toBeGreaterThanOrEqual(3)
    }))

  it.effect("a failure depth can help with still escalates", () =>
    Effect.gen(function*() {
      // a plan that leaves part of the task out converges in no simple iteration; FULL refines it
      const { log } = yield* runWith(offline, {
        task: "Compute 17 + 25",
        criteria: { answerMatches: "^99$" },
        budget: { ttl: 1 }
      })
      expect(ofTag(log, "Escalated")).toHaveLength(1)
    }))
})
