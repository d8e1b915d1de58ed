import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeReport } from "../../src/domain/Evaluation.js"
import type { Plan } from "../../src/domain/Plan.js"
import type { Llm } from "../../src/llm/Llm.js"
import { emptyLedger, REFINEMENT_LIMITS } from "../../src/planning/RecursivePlanner.js"
import * as planner from "../../src/planning/RecursivePlanner.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { builtinTools } from "../../src/tools/ToolRegistry.js"
import { toolInfos } from "../../src/validation/SemanticValidator.js"
import { scriptedLlm } from "../support/engine.js"
import { plan as fixturePlan, step } from "../support/fixtures.js"

const tools = toolInfos(builtinTools)
const llmOf = scriptedLlm
const refinements = (...responses: Array<unknown>) => ({
  [PromptId.RECURSIVE_REFINEMENT_USER]: responses.map((output) => ({ output }))
})
const noReport = makeReport("v", "plan", [])
const refine = (p: Plan, llm: Llm, ledger = emptyLedger, report = noReport) =>
  planner.refine({ request: "Compute a result", plan: p, report, tools, ledger, llm })

const newStep = (id: string, description = "Compute the adjusted part of the result") => ({
  stepId: id,
  description,
  dependencies: []
})

describe("RecursivePlanner", () => {
  it.effect("MODIFY and REPLACE rewrite a pending fragment in place and leave it pending", () =>
    Effect.gen(function*() {
      const p = fixturePlan(3)
      const o = yield* refine(
        p,
        llmOf(refinements({
          actions: [
            {
              actionType: "MODIFY",
              targetStepId: "s2",
              newStep: newStep("s2", "Compute part 2 of the result precisely"),
              justification: "vague"
            },
            {
              actionType: "REPLACE",
              targetStepId: "s3",
              newStep: {
                ...newStep("s3"),
                tool: "calculator",
                toolInput: { expression: "2 * 3" },
                description: "Compute 2 * 3 with the calculator"
              },
              justification: "use the tool"
            }
          ]
        }))
      )
      expect(o.applied.map((a) => a.actionType)).toEqual(["MODIFY", "REPLACE"])
      expect(o.plan.steps.map((s) => [s.stepId, s.status, s.description])).toEqual([
        ["s1", "pending", "Compute part 1 of the result"],
        ["s2", "pending", "Compute part 2 of the result precisely"],
        ["s3", "pending", "Compute 2 * 3 with the calculator"]
      ])
      expect(o.plan.steps[0]).toBe(p.steps[0]) // untouched fragments are the same objects
    }))

  it.effect("executed steps are never rewritten: a rewrite marks them invalid and adds a pending successor (FR-069, FR-070)", () =>
    Effect.gen(function*() {
      const p: Plan = {
        goal: "Compute a result",
        steps: [
          step("s1", 1, 3, { status: "complete", executed: true, stepOutput: "one", handoffToNext: "one" }),
          step("s2", 2, 3, { status: "complete", executed: true, stepOutput: "two", dependencies: ["s1"] }),
          step("s3", 3, 3, { dependencies: ["s2"] })
        ]
      }
      const o = yield* refine(
        p,
        llmOf(refinements({
          actions: [
            {
              actionType: "MODIFY",
              targetStepId: "s1",
              newStep: newStep("s1", "Compute part 1 of the result again"),
              justification: "wrong"
            },
            { actionType: "REMOVE", targetStepId: "s2", justification: "unneeded" }
          ]
        }))
      )
      const byId = Object.fromEntries(o.plan.steps.map((s) => [s.stepId, s]))
      expect(byId["s1"]).toMatchObject({
        status: "invalid",
        stepOutput: "one",
        description: "Compute part 1 of the result",
        supersededBy: "s1.r2"
      })
      expect(byId["s1.r2"]).toMatchObject({ status: "pending", description: "Compute part 1 of the result again" })
      // s2 consumed s1: it is re-run too, and s3 now waits for the re-runs
      expect(byId["s2"]).toMatchObject({ status: "invalid", stepOutput: "two", supersededBy: "s2.r2" })
      expect(byId["s2.r2"]).toMatchObject({ status: "pending", dependencies: ["s1.r2"] })
      expect(byId["s3"]!.dependencies).toEqual(["s2.r2"])
      expect(o.applied).toHaveLength(1)
      expect(o.advisories.join("\n")).toContain("REMOVE of s2 refused: the step already ran")
      expect(o.applied[0]!.inconsistencyDetected).toBe(true)
    }))

  it.effect("3 attempts per fragment: then it is no longer refined and needs manual intervention (FR-065)", () =>
    Effect.gen(function*() {
      const modify = {
        actionType: "MODIFY",
        targetStepId: "s1",
        newStep: newStep("s1", "Compute part 1 of the result again"),
        justification: "again"
      }
      const llm = llmOf(refinements({ actions: [modify] }))
      let ledger = emptyLedger
      let p: Plan = fixturePlan(2)
      const applied: Array<number> = []
      for (let i = 0; i < 5; i++) {
        const o = yield* refine(p, llm, ledger)
        applied.push(o.applied.length)
        ledger = o.ledger
        p = o.plan
        if (i === 2) {
          expect(o.manualInterventions).toEqual([{
            stepId: "s1",
            reason: expect.stringContaining("refinement limit of 3")
          }])
        }
      }
      expect(applied).toEqual([1, 1, 1, 0, 0])
      expect(ledger.perFragment["s1"]).toBe(REFINEMENT_LIMITS.perFragment)
      expect(p.steps[0]!.manualIntervention).toContain("needs human review")
    }))

  it.effect("10 attempts in total: then all refinement stops (FR-066)", () =>
    Effect.gen(function*() {
      const p = fixturePlan(6)
      const llm = llmOf(
        refinements({
          actions: ["s1", "s2", "s3", "s4", "s5", "s6"].map((id) => ({
            actionType: "MODIFY",
            targetStepId: id,
            newStep: newStep(id, `Compute part ${id} of the result again`),
            justification: "again"
          }))
        })
      )
      const first = yield* refine(p, llm)
      expect(first.applied).toHaveLength(6)
      const second = yield* refine(first.plan, llm, first.ledger)
      expect(second.applied).toHaveLength(4)
      expect(second.ledger.total).toBe(10)
      const third = yield* refine(second.plan, llm, second.ledger)
      expect(third.applied).toHaveLength(0)
      expect(third.advisories[0]).toContain("global refinement limit (10) reached")
      expect(llm.calls.filter((c) => c.promptId === PromptId.RECURSIVE_REFINEMENT_USER)).toHaveLength(2)
    }))

  it.effect("SUBPLAN_CREATE nests up to depth 5; deeper is marked for manual intervention and execution goes on (FR-082)", () =>
    Effect.gen(function*() {
      let p: Plan = fixturePlan(1)
      let target = "s1"
      const ids: Array<string> = []
      for (let depth = 1; depth <= 6; depth++) {
        const o = yield* refine(
          p,
          llmOf(
            refinements({
              actions: [{
                actionType: "SUBPLAN_CREATE",
                targetStepId: target,
                subplanGoal: `level ${depth}`,
                substeps: [newStep("a", `Compute sub part ${depth} of the result`)],
                justification: "decompose"
              }]
            })
          )
        )
        if (depth <= 5) {
          expect(o.applied).toHaveLength(1)
          target = `${target}.a`
          ids.push(target)
        } else {
          expect(o.applied).toHaveLength(0)
          expect(o.manualInterventions[0]).toMatchObject({ stepId: target, reason: expect.stringContaining("depth 6") })
        }
        p = o.plan
      }
      let sub = p.steps[0]!.subplan
      for (let d = 1; d <= 5; d++) {
        expect(sub?.depthLevel).toBe(d)
        sub = sub?.substeps[0]?.subplan
      }
    }))

  it.effect("SUBPLAN_CREATE without substeps asks the subplan prompt for them", () =>
    Effect.gen(function*() {
      const llm = llmOf({
        ...refinements({ actions: [{ actionType: "SUBPLAN_CREATE", targetStepId: "s1", justification: "too big" }] }),
        [PromptId.RECURSIVE_SUBPLAN_GENERATION_USER]: [{
          output: {
            subplanGoal: "parts",
            substeps: [
              newStep("x", "Compute the first half of the result"),
              newStep("y", "Compute the second half of the result")
            ]
          }
        }]
      })
      const o = yield* refine(fixturePlan(1), llm)
      expect(o.plan.steps[0]!.subplan?.substeps.map((s) => s.stepId)).toEqual(["s1.x", "s1.y"])
    }))

  it.effect("refined fragments are validated before acceptance: a hallucinated tool is rejected (FR-049)", () =>
    Effect.gen(function*() {
      const o = yield* refine(
        fixturePlan(2),
        llmOf(
          refinements({
            actions: [{
              actionType: "MODIFY",
              targetStepId: "s2",
              newStep: { ...newStep("s2", "Search the web for part 2 of the result"), tool: "web.search" },
              justification: "look it up"
            }]
          })
        )
      )
      expect(o.applied).toHaveLength(0)
      expect(o.advisories[0]).toContain("rejected by validation")
      expect(o.plan.steps[1]!.tool).toBeUndefined()
    }))

  it.effect("a validator repair that conflicts with the planner's refinement is recorded; the planner wins (FR-079)", () =>
    Effect.gen(function*() {
      const report = makeReport("v", "plan", [{
        issueId: "v-1",
        type: "specificity",
        severity: "LOW",
        description: "vague",
        location: { stepId: "s2" },
        proposedRepair: { action: "say what part 2 is", target: "s2" }
      }])
      const o = yield* refine(
        fixturePlan(2),
        llmOf(
          refinements({
            actions: [{
              actionType: "MODIFY",
              targetStepId: "s2",
              newStep: newStep("s2", "Compute part 2 of the result as a sum"),
              justification: "planner's take"
            }]
          })
        ),
        emptyLedger,
        report
      )
      expect(o.plan.steps[1]!.description).toBe("Compute part 2 of the result as a sum")
      expect(o.advisories.join("\n")).toContain("validator's proposed repair for s2")
    }))

  it.effect("follow-up questions for vague fragments are kept (FR-011)", () =>
    Effect.gen(function*() {
      const report = makeReport("v", "plan", [{
        issueId: "v-1",
        type: "specificity",
        severity: "MEDIUM",
        description: "vague",
        location: { stepId: "s1" }
      }])
      const o = yield* refine(
        fixturePlan(1),
        llmOf(refinements({ actions: [], followUpQuestions: ["Which result?"] })),
        emptyLedger,
        report
      )
      expect(o.followUpQuestions).toEqual([expect.stringContaining("What exactly should step s1"), "Which result?"])
    }))

  it.effect("a refinement the model cannot produce leaves the plan as it is, and says so (FR-067)", () =>
    Effect.gen(function*() {
      const p = fixturePlan(2)
      const o = yield* refine(p, llmOf({ [PromptId.RECURSIVE_REFINEMENT_USER]: [{ error: { status: 500 } }] }))
      expect(o.plan).toBe(p)
      expect(o.advisories[0]).toContain("continuing with the current plan")
    }))
})
