import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ExecutionHistory } from "../../src/domain/Execution.js"
import { RunEvent } from "../../src/domain/RunEvent.js"
import { runTask } from "../../src/index.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { MAX_REPAIR_ATTEMPTS } from "../../src/supervisor/Supervisor.js"
import { scripted } from "../support/engine.js"
import { answer, convergingScript, noRefinement, planOut, profile, reasoned, verdict } from "../support/scripts.js"

const task = "Compute 6 * 7 and explain it"
const phasesOf = (r: { history: { passes: ReadonlyArray<{ phases: ReadonlyArray<string> }> } }) =>
  r.history.passes.map((p) => p.phases.join(">"))

describe("the multi-pass loop", () => {
  it.effect("converges, with a history that decodes and events of the union", () =>
    Effect.gen(function*() {
      const { layer } = scripted(convergingScript(), { fallback: false })
      const r = yield* runTask({ task, mode: "FULL" }).pipe(Effect.provide(layer))
      expect(r.status).toBe("CONVERGED")
      expect(r.finalAnswer).toMatchObject({
        answerText: "42: six sevens",
        usedStepIds: ["s1", "s2"],
        converged: true,
        label: "converged"
      })
      expect(phasesOf(r)).toEqual(["PLAN", "EXECUTE>EVALUATE"])
      expect(() => Schema.decodeUnknownSync(ExecutionHistory)(Schema.encodeSync(ExecutionHistory)(r.history))).not
        .toThrow()
      expect(r.history.passes[1]!.evaluationResults.convergence?.converged).toBe(true)
      expect(r.history.passes[0]!.taskProfile?.profileVersion).toBe(1)
      expect(r.history.passes[0]!.depthConfiguration?.adjustmentReason).toContain("initial profile")
      // profile, plan, validation, 2 steps, validation, convergence, synthesis
      expect(r.usage.llmCalls).toBe(8)
    }))

  it.effect("is deterministic: the same script twice gives the same phases and event types", () =>
    Effect.gen(function*() {
      const once = () => {
        const { layer } = scripted({
          ...convergingScript(),
          [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false), verdict(true)],
          [PromptId.RECURSIVE_REFINEMENT_USER]: [{
            output: {
              actions: [{
                actionType: "ADD",
                newStep: {
                  stepId: "s3",
                  description: "Check the product 42 by computing 42 / 7",
                  tool: "calculator",
                  toolInput: { expression: "42 / 7" },
                  dependencies: ["s1"]
                },
                justification: "verify"
              }]
            }
          }]
        }, { fallback: false })
        return runTask({ task, mode: "FULL", runId: "fixed" }).pipe(Effect.provide(layer))
      }
      const a = yield* once()
      const b = yield* once()
      expect(phasesOf(a)).toEqual(phasesOf(b))
      expect(phasesOf(a)).toEqual(["PLAN", "EXECUTE>EVALUATE>REFINE", "RE_EXECUTE>EVALUATE"])
      const types = (r: typeof a) => r.history.passes.flatMap((p) => Object.keys(p.executionResults))
      expect(types(a)).toEqual(types(b))
      expect(a.eventCount).toBe(b.eventCount)
    }))

  it.effect("a later step's prompt carries an earlier step's output; steps wait for their dependencies", () =>
    Effect.gen(function*() {
      const { layer, calls } = scripted({
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [planOut([
          { id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expression: "6 * 7" } },
          { id: "s2", d: "Explain the product using the check", deps: ["s3"] },
          { id: "s3", d: "Check the product 42 against 7 * 6", deps: ["s1"] }
        ])],
        [PromptId.REASONING_STEP_USER]: [reasoned("6 * 7 = 42"), reasoned("7 * 6 = 42 too"), reasoned("42, checked")]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL" }).pipe(Effect.provide(layer))
      const reasoning = calls.filter((c) => c.promptId === PromptId.REASONING_STEP_USER).map((c) =>
        c.input as { stepId: string; incomingContext: string; toolResult?: unknown }
      )
      expect(reasoning.map((c) => c.stepId)).toEqual(["s1", "s3", "s2"])
      expect(reasoning[0]!.toolResult).toEqual({ expression: "6 * 7", value: 42 })
      expect(reasoning[1]!.incomingContext).toContain("6 * 7 = 42")
      expect(reasoning[2]!.incomingContext).toContain("7 * 6 = 42 too")
      expect(r.status).toBe("CONVERGED")
    }))

  it.effect("BLOCKED makes a step invalid; with nothing left to refine the run stops as stalled without burning the TTL", () =>
    Effect.gen(function*() {
      const { layer } = scripted({
        ...convergingScript(),
        [PromptId.REASONING_STEP_USER]: [
          reasoned("6 * 7 = 42"),
          reasoned("cannot explain without more data", "BLOCKED")
        ],
        [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)],
        [PromptId.RECURSIVE_REFINEMENT_USER]: [noRefinement],
        [PromptId.TASKPROFILE_UPDATE_USER]: [{ output: { ...profile().output as object, adjustmentReason: "same" } }],
        [PromptId.ANSWER_SYNTHESIS_USER]: [answer("42 (explanation blocked)", ["s1"])]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL", budget: { ttl: 5 } }).pipe(Effect.provide(layer))
      expect(r.plan?.steps.find((s) => s.stepId === "s2")).toMatchObject({ status: "invalid", clarityState: "BLOCKED" })
      expect(r.terminationReason).toBe("stalled")
      expect(r.status).toBe("NOT_CONVERGED")
      expect(r.history.passes).toHaveLength(2)
      expect(r.finalAnswer?.label).toBe("non-converged: stalled")
      expect(r.finalAnswer?.converged).toBe(false)
    }))

  it.effect("a failing tool makes the step failed with its error, recorded in the history", () =>
    Effect.gen(function*() {
      const { layer } = scripted({
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [
          planOut([{
            id: "s1",
            d: "Compute 1 / 0 with the calculator",
            tool: "calculator",
            input: { expression: "1 / 0" }
          }])
        ],
        [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)],
        [PromptId.RECURSIVE_REFINEMENT_USER]: [noRefinement]
      }, { fallback: false })
      const r = yield* runTask({ task: "Compute 1 / 0", mode: "FULL" }).pipe(Effect.provide(layer))
      expect(r.plan?.steps[0]).toMatchObject({ status: "failed", error: expect.stringContaining("division by zero") })
      expect(r.history.passes[1]!.executionResults["s1"]).toMatchObject({
        status: "failed",
        error: expect.stringContaining("division by zero")
      })
      expect(r.converged).toBe(false)
      expect(r.history.passes[1]!.evaluationResults.convergence?.reasonCodes).toContain("failed_steps")
    }))

  it.effect("TTL reaching 0 at a pass boundary returns the latest completed pass, labeled", () =>
    Effect.gen(function*() {
      let n = 0
      const { layer } = scripted({
        ...convergingScript(),
        [PromptId.REASONING_STEP_USER]: [reasoned("partial")],
        [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)],
        [PromptId.RECURSIVE_REFINEMENT_USER]: [
          () => ({
            output: {
              actions: [{
                actionType: "ADD",
                newStep: {
                  stepId: `x${++n}`,
                  description: `Compute 6 * 7 again as check ${n}`,
                  tool: "calculator",
                  toolInput: { expression: "6 * 7" }
                },
                justification: "another check"
              }]
            }
          })
        ],
        [PromptId.TASKPROFILE_UPDATE_USER]: [{ output: { ...profile().output as object, adjustmentReason: "same" } }]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL", budget: { ttl: 2 } }).pipe(Effect.provide(layer))
      expect(r.terminationReason).toBe("ttl_expired")
      expect(r.ttlExpiration).toMatchObject({
        converged: false,
        resultType: "ttl_expired",
        expirationPoint: "phase_boundary",
        terminationReason: "ttl_expired",
        exhausted: "ttl"
      })
      expect(r.ttlExpiration?.latestPassResult?.passNumber).toBe(2)
      expect(r.ttlExpiration?.ttlExpiredMetadata.reasonCodes.length).toBeGreaterThan(0)
      expect(r.history.passes.filter((p) => p.passNumber > 0)).toHaveLength(2)
      expect(r.finalAnswer).toMatchObject({ ttlExhausted: true, label: "ttl_exhausted", converged: false })
    }))

  it.effect("a malformed answer is repaired locally before anything else", () =>
    Effect.gen(function*() {
      const { layer, calls } = scripted({
        ...convergingScript(),
        [PromptId.ANSWER_SYNTHESIS_USER]: [{ raw: "{'answerText': '42', 'confidence': 0.9, 'usedStepIds': ['s1'],}" }]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL" }).pipe(Effect.provide(layer))
      expect(r.finalAnswer?.answerText).toBe("42")
      expect(calls.some((c) => c.promptId === PromptId.SUPERVISOR_REPAIR_JSON_USER)).toBe(false)
    }))

  it.effect("an answer beyond local repair goes to the repair prompt with the decode error", () =>
    Effect.gen(function*() {
      const { layer, calls } = scripted({
        ...convergingScript(),
        [PromptId.ANSWER_SYNTHESIS_USER]: [{ output: { text: "42" } }],
        [PromptId.SUPERVISOR_REPAIR_JSON_USER]: [{
          output: { repairedJson: "{\"answerText\": \"42 repaired\", \"confidence\": 0.7, \"usedStepIds\": []}" }
        }]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL" }).pipe(Effect.provide(layer))
      expect(r.finalAnswer?.answerText).toBe("42 repaired")
      const repair = calls.find((c) => c.promptId === PromptId.SUPERVISOR_REPAIR_JSON_USER)!.input as {
        decodeError: string
      }
      expect(repair.decodeError).toContain("answerText")
    }))

  it.effect("a step naming a missing tool gets an existing tool from the supervisor, or is marked invalid", () =>
    Effect.gen(function*() {
      const { layer } = scripted({
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [planOut([
          { id: "s1", d: "Compute 6 * 7 with the calculator", tool: "math.eval", input: { expression: "6 * 7" } },
          { id: "s2", d: "Search the web for the meaning of 42", tool: "web.search", input: { q: "42" } }
        ])],
        [PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER]: [{
          output: { replacementTool: "calculator", justification: "same job" }
        }, { output: { replacementTool: null, justification: "no web access" } }],
        [PromptId.RECURSIVE_REFINEMENT_USER]: [noRefinement]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL" }).pipe(Effect.provide(layer))
      expect(r.plan?.steps[0]).toMatchObject({ tool: "calculator", status: "complete" })
      expect(r.plan?.steps[1]).toMatchObject({ tool: "web.search", status: "invalid" })
      expect(r.advisories.join("\n")).toContain("web.search does not exist and has no replacement")
    }))

  it.effect("a bad tool input is repaired through the tool-call prompt", () =>
    Effect.gen(function*() {
      const { layer, calls } = scripted({
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [
          planOut([{ id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expr: "6 * 7" } }])
        ],
        [PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER]: [{ output: { toolInput: { expression: "6 * 7" } } }]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL" }).pipe(Effect.provide(layer))
      expect(r.plan?.steps[0]?.status).toBe("complete")
      expect(
        (calls.find((c) => c.promptId === PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER)!.input as { decodeError: string })
          .decodeError
      ).toContain("expression")
    }))

  it.effect("a tool input that cannot be repaired fails the step with the decode message", () =>
    Effect.gen(function*() {
      const { layer } = scripted({
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [
          planOut([{ id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expr: "6 * 7" } }])
        ],
        [PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER]: [{ output: { toolInput: { nope: 1 } } }],
        [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)],
        [PromptId.RECURSIVE_REFINEMENT_USER]: [noRefinement]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL" }).pipe(Effect.provide(layer))
      expect(r.plan?.steps[0]).toMatchObject({ status: "failed", error: expect.stringContaining("expression") })
    }))

  it.effect("the supervisor tries a repair MAX_REPAIR_ATTEMPTS times, each attempt told the last one's error", () =>
    Effect.gen(function*() {
      const { calls, layer } = scripted({
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [
          planOut([{ id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expr: "6 * 7" } }])
        ],
        [PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER]: [
          { output: { toolInput: { expression: "" } } },
          { output: { toolInput: { still: "no" } } }
        ],
        [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)],
        [PromptId.RECURSIVE_REFINEMENT_USER]: [noRefinement]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL", budget: { ttl: 1 } }).pipe(Effect.provide(layer))
      expect(r.plan?.steps[0]).toMatchObject({ status: "failed" })
      const repairs = calls.filter((c) => c.promptId === PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER)
      expect(repairs).toHaveLength(MAX_REPAIR_ATTEMPTS)
      // the first attempt is told the step's own error; the second what was wrong with the first one's answer
      expect((repairs[0]!.input as { decodeError: string }).decodeError).toContain("is missing")
      expect((repairs[1]!.input as { decodeError: string }).decodeError).toContain("actual \"\"")
    }))

  it.effect("a final answer that falls short of the answer criteria the step outputs met is flagged", () =>
    Effect.gen(function*() {
      const { layer } = scripted({
        ...convergingScript(),
        [PromptId.ANSWER_SYNTHESIS_USER]: [answer("six sevens", ["s1", "s2"])]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL", criteria: { answerMentions: ["42"] } }).pipe(Effect.provide(layer))
      expect(r.status).toBe("CONVERGED")
      expect(r.finalAnswer?.answerText).toBe("six sevens") // the second attempt (the script repeats) did no better
      expect(r.finalAnswer?.notes).toContain("fails answer criteria the step outputs met: answer_missing_terms:42")
      expect(r.advisories.join("\n")).toContain("answer_missing_terms:42")
    }))

  it.effect("the answer criteria reach the synthesis prompt; an answer that misses them is synthesized again with what it missed", () =>
    Effect.gen(function*() {
      const { layer, calls } = scripted({
        ...convergingScript(),
        [PromptId.ANSWER_SYNTHESIS_USER]: [
          answer("six sevens", ["s1", "s2"]),
          answer("six sevens make 42", ["s1", "s2"])
        ]
      }, { fallback: false })
      const r = yield* runTask({ task, mode: "FULL", criteria: { answerMentions: ["42"] } }).pipe(Effect.provide(layer))
      const prompts = calls.filter((c) => c.promptId === PromptId.ANSWER_SYNTHESIS_USER).map((c) => c.user)
      expect(prompts).toHaveLength(2)
      expect(prompts[0]).toContain("The answer text must: mention \"42\"")
      expect(prompts[1]).toContain("An earlier answer failed answer_missing_terms:42: \"six sevens\"")
      expect(r.finalAnswer?.answerText).toBe("six sevens make 42")
      expect(r.finalAnswer?.notes).toContain("synthesized again: the first answer failed answer_missing_terms:42")
      expect(r.advisories.join("\n")).not.toContain("answer_missing_terms")
    }))

  it.effect("every event decodes with the RunEvent schema and is sequence-numbered from 1", () =>
    Effect.gen(function*() {
      const { prepare } = yield* Effect.promise(() => import("../../src/run/Run.js"))
      const { layer } = scripted(convergingScript(), { fallback: false })
      const events = yield* Effect.gen(function*() {
        const p = yield* prepare({ task, mode: "FULL" })
        yield* p.execute
        return yield* p.events.log
      }).pipe(Effect.provide(layer))
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      for (const e of events) {
        expect(() => Schema.decodeUnknownSync(RunEvent)(Schema.encodeSync(RunEvent)(e))).not.toThrow()
      }
      expect(events[0]!._tag).toBe("RunStarted")
      expect(events[events.length - 1]!._tag).toBe("RunFinished")
    }))
})
