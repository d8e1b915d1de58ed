import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { liveSteps } from "../../src/domain/Plan.js"
import { REFINEMENT_LIMITS } from "../../src/planning/RecursivePlanner.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import { scripted } from "../support/engine.js"
import { noIssues, planOut, profile, reasoned, verdict } from "../support/scripts.js"

const family = /^s2(\.r\d+)?$/
const revision = (id: string) => Number(id.match(/\.r(\d+)$/)?.[1] ?? 1)

/** A planner that rewrites step s2 every pass, naming it by `target(ids of the plan it sees)`. */
const rewritingS2 = (target: (ids: ReadonlyArray<string>) => string) => ({
  [PromptId.TASKPROFILE_INFERENCE_USER]: [profile(5)],
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    { id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expression: "6 * 7" } },
    { id: "s2", d: "Explain the product of 6 and 7", deps: ["s1"] }
  ], "Compute 6 * 7 and explain it")],
  [PromptId.VALIDATION_SEMANTIC_USER]: [noIssues],
  [PromptId.REASONING_STEP_USER]: [reasoned("an explanation")],
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)],
  [PromptId.RECURSIVE_REFINEMENT_USER]: [(request: { input: unknown }) => {
    const ids = (request.input as { plan: { steps: Array<{ stepId: string }> } }).plan.steps.map((s) => s.stepId)
    const stepId = target(ids)
    return {
      output: {
        actions: [{
          actionType: "MODIFY",
          targetStepId: stepId,
          newStep: { stepId, description: "Explain the product of 6 and 7 again", dependencies: ["s1"] },
          justification: "not good enough yet"
        }]
      }
    }
  }]
})

const refinementsOfS2 = (script: ReturnType<typeof rewritingS2>) =>
  Effect.gen(function*() {
    const run = yield* prepare({ task: "Compute 6 * 7 and explain it", mode: "FULL", budget: { ttl: 10 } })
    const result = yield* run.execute
    const applied = (yield* run.events.log).filter((e) => e._tag === "RefinementApplied")
    for (const e of applied) {
      // never two live copies of one step
      expect(liveSteps(e.plan.steps).filter((s) => family.test(s.stepId)).map((s) => s.stepId)).toHaveLength(1)
    }
    return {
      result,
      modifications: applied.flatMap((e) => e.actions).filter((a) => family.test(a.targetStepId ?? "")).length,
      ledger: applied.at(-1)?.ledger
    }
  }).pipe(Effect.provide(scripted(script).layer))

describe("refinement limits follow fragments, not ids (#14.2)", () => {
  it.effect("a planner naming the current successor each time (s2, s2.r2, s2.r3 …) is stopped at 3", () =>
    Effect.gen(function*() {
      const r = yield* refinementsOfS2(
        rewritingS2((ids) => ids.filter((id) => family.test(id)).sort((a, b) => revision(b) - revision(a))[0]!)
      )
      expect(r.modifications).toBe(REFINEMENT_LIMITS.perFragment)
      expect(r.ledger?.perFragment).toEqual({ s2: 3 })
      expect(r.result.manualInterventions.map((m) => m.stepId)).toContain("s2")
      const live = liveSteps(r.result.plan!.steps).find((s) => family.test(s.stepId))!
      expect(live.manualIntervention).toContain("refinement limit")
    }))

  it.effect("a planner naming the original s2 each time rewrites its live successor, never a second copy", () =>
    Effect.gen(function*() {
      const r = yield* refinementsOfS2(rewritingS2(() => "s2"))
      expect(r.modifications).toBe(REFINEMENT_LIMITS.perFragment)
      const ids = r.result.plan!.steps.map((s) => s.stepId).filter((id) => family.test(id))
      expect(ids).toEqual(["s2", "s2.r2", "s2.r3", "s2.r4"])
      expect(liveSteps(r.result.plan!.steps).filter((s) => family.test(s.stepId)).map((s) => s.stepId)).toEqual([
        "s2.r4"
      ])
    }))
})

describe("subplans: each substep is a fragment of its own, nesting bounded by depth (FR-082)", () => {
  const levels = ["s2", "s2.1", "s2.1.1", "s2.1.1.1", "s2.1.1.1.1", "s2.1.1.1.1.1"]
  /** Validation finds s2 too coarse before it runs; the planner nests six levels deep in one refinement. */
  const nesting = {
    ...rewritingS2(() => "s2"),
    [PromptId.VALIDATION_SEMANTIC_USER]: [
      { output: { issues: [{ type: "specificity", severity: "MEDIUM", description: "too coarse", stepId: "s2" }] } },
      noIssues
    ],
    [PromptId.RECURSIVE_REFINEMENT_USER]: [
      {
        output: {
          actions: levels.map((target) => ({
            actionType: "SUBPLAN_CREATE",
            targetStepId: target,
            subplanGoal: `break ${target} down`,
            substeps: [{ stepId: "1", description: `Explain one part of ${target}`, dependencies: [] }],
            justification: "too coarse"
          }))
        }
      },
      { output: { actions: [] } }
    ]
  }

  it.effect("five nested levels apply; the sixth is refused by depth (manual intervention advised, the run goes on)", () =>
    Effect.gen(function*() {
      const run = yield* prepare({ task: "Compute 6 * 7 and explain it", mode: "FULL", budget: { ttl: 3 } })
      const result = yield* run.execute
      const [first] = (yield* run.events.log).filter((e) => e._tag === "RefinementApplied")
      expect(first!.actions.map((a) => a.targetStepId)).toEqual(levels.slice(0, 5))
      expect(first!.advisories.join("\n")).toContain("SUBPLAN_CREATE on s2.1.1.1.1.1 exceeds the nesting depth")
      expect(first!.advisories.join("\n")).not.toContain("attempt limit")
      expect(result.manualInterventions.map((m) => m.stepId)).toContain("s2.1.1.1.1.1")
      // each level counted against its own fragment, not against s2's three attempts
      expect(first!.ledger?.perFragment).toMatchObject({ "s2": 1, "s2.1": 1, "s2.1.1": 1, "s2.1.1.1": 1 })
      expect(result.status).not.toBe("FAILED")
    }).pipe(Effect.provide(scripted(nesting).layer)))
})
