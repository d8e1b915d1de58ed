import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { depthFor, stabilize, textSignals } from "../../src/adaptive/AdaptiveDepth.js"
import * as adaptive from "../../src/adaptive/AdaptiveDepth.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { scriptedLlm } from "../support/engine.js"

const dims = (reasoningDepth: number, informationSufficiency: number) => ({
  reasoningDepth,
  informationSufficiency,
  expectedToolUsage: "none",
  outputBreadth: "narrow",
  confidenceRequirement: "low",
  rawInference: "r"
} as const)
const llmOf = scriptedLlm

describe("AdaptiveDepth", () => {
  it("the profile → TTL table: deeper or less sufficient gets more cycles and deep mode; capped by the budget", () => {
    const row = (d: number, s: number, cap = 10) => {
      const c = depthFor(dims(d, s), cap, "r", [])
      return [c.allocatedTtl, c.reasoningMode]
    }
    expect(row(1, 0.9)).toEqual([1, "shallow"])
    expect(row(2, 0.9)).toEqual([2, "shallow"])
    expect(row(2, 0.5)).toEqual([3, "balanced"])
    expect(row(3, 0.9)).toEqual([3, "balanced"])
    expect(row(3, 0.2)).toEqual([5, "deep"])
    expect(row(4, 0.9)).toEqual([4, "deep"])
    expect(row(5, 0.1)).toEqual([7, "deep"])
    const capped = depthFor(dims(5, 0.1), 3, "r", [])
    expect(capped.allocatedTtl).toBe(3)
    expect(capped.adjustmentReason).toContain("capped at the budget's 3 cycles (wanted 7)")
    expect(capped.heuristicsUsed).toContain("ttl_cap")
  })

  it("text signals lower sufficiency for vague wording, open questions and missing details", () => {
    expect(textSignals("Compute the mean of 3, 4 and 5 to two decimals").sufficiency).toBe(1)
    const vague = textSignals("Do something about the stuff, etc. Maybe improve things? Or not??")
    expect(vague.vagueTerms).toBeGreaterThanOrEqual(4)
    expect(vague.sufficiency).toBeLessThan(0.6)
    expect(textSignals("Fix it").missingDetails).toBe(2)
  })

  it.effect("infers all five dimensions through the model, combined with the text signals", () =>
    Effect.gen(function*() {
      const p = yield* adaptive.infer(
        "Do something with the stuff, etc.",
        10,
        llmOf({ [PromptId.TASKPROFILE_INFERENCE_USER]: [{ output: dims(2, 0.95) }] })
      )
      expect(p.profile).toMatchObject({ profileVersion: 1, reasoningDepth: 2, rawInference: "r" })
      expect(p.profile.informationSufficiency).toBeLessThan(0.95)
      expect(p.depth.heuristicsUsed).toEqual(expect.arrayContaining(["model_inference", "text_signals"]))
    }))

  it.effect("stability: a second inference in the same pass stays within one tier, clamped and recorded (FR-NEW-007)", () =>
    Effect.gen(function*() {
      const llm = llmOf({ [PromptId.TASKPROFILE_INFERENCE_USER]: [{ output: dims(1, 1) }, { output: dims(5, 1) }] })
      const first = yield* adaptive.infer("Compute 2 + 3", 10, llm)
      const second = yield* adaptive.infer("Compute 2 + 3", 10, llm, first.profile)
      expect(second.profile.reasoningDepth).toBe(2)
      expect(second.depth.heuristicsUsed).toContain("tier_stability_clamp")
      expect(stabilize(dims(3, 1), dims(3, 1)).clamped).toBe(false)
    }))

  it.effect("revision at a pass boundary increments the version and can go down as well as up (FR-080)", () =>
    Effect.gen(function*() {
      const llm = llmOf({
        [PromptId.TASKPROFILE_INFERENCE_USER]: [{ output: dims(3, 0.9) }],
        [PromptId.TASKPROFILE_UPDATE_USER]: [{
          output: { ...dims(5, 0.3), adjustmentReason: "validation found many gaps" }
        }, { output: { ...dims(1, 1), adjustmentReason: "simpler than thought" } }]
      })
      const p0 = yield* adaptive.infer("Compute 2 + 3", 10, llm)
      const up = yield* adaptive.revise(
        "Compute 2 + 3",
        p0,
        { passNumber: 1, validationIssueCount: 4, convergenceFailures: ["incomplete"], refinementsNeeded: 2 },
        10,
        llm
      )
      expect(up).toMatchObject({ changed: true, profile: { profileVersion: 2, reasoningDepth: 5 } })
      expect(up.depth.allocatedTtl).toBeGreaterThan(p0.depth.allocatedTtl)
      expect(up.depth.adjustmentReason).toContain("v1→v2 at pass 1: validation found many gaps")
      expect(up.depth.heuristicsUsed).toEqual(
        expect.arrayContaining(["validation_issues", "convergence_failures", "refinement_needs"])
      )
      const down = yield* adaptive.revise(
        "Compute 2 + 3",
        up,
        { passNumber: 2, validationIssueCount: 0, convergenceFailures: [], refinementsNeeded: 0 },
        10,
        llm
      )
      expect(down).toMatchObject({ changed: true, profile: { profileVersion: 3, reasoningDepth: 1 } })
      expect(down.depth.allocatedTtl).toBeLessThan(up.depth.allocatedTtl)
    }))

  it.effect("a failed inference uses the text signals and says so", () =>
    Effect.gen(function*() {
      const p = yield* adaptive.infer(
        "Compute 2 + 3",
        10,
        llmOf({ [PromptId.TASKPROFILE_INFERENCE_USER]: [{ error: { status: 500 } }] })
      )
      expect(p.profile.rawInference).toContain("model inference unavailable")
      expect(p.advisories[0]).toContain("profile inference failed")
    }))
})
