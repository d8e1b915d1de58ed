import { Effect } from "effect"
import type { RunHalt } from "../domain/Errors.js"
import type { AdaptiveDepthConfiguration, TaskProfile, TaskProfileDimensions } from "../domain/Profile.js"
import { type TextSignals, textSignals } from "../domain/TextSignals.js"
import { isModelFailure, type Llm } from "../llm/Llm.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import { traced } from "../telemetry/Span.js"

export { type TextSignals, textSignals }

/**
 * The profile → TTL table (README):
 *   TTL cycles = reasoningDepth + 1 when sufficiency < 0.7, + 2 when < 0.4; capped by the run's budget.
 *   mode: shallow when depth ≤ 2 and sufficiency ≥ 0.7; deep when depth ≥ 4 or sufficiency < 0.4; balanced otherwise.
 */
export const depthFor = (
  profile: TaskProfileDimensions,
  ttlCap: number,
  adjustmentReason: string,
  heuristicsUsed: ReadonlyArray<string>,
  signals?: TextSignals
): AdaptiveDepthConfiguration => {
  const s = profile.informationSufficiency
  const wanted = profile.reasoningDepth + (s < 0.4 ? 2 : s < 0.7 ? 1 : 0)
  const allocatedTtl = Math.max(1, Math.min(ttlCap, wanted))
  const reasoningMode = profile.reasoningDepth <= 2 && s >= 0.7
    ? "shallow"
    : profile.reasoningDepth >= 4 || s < 0.4
    ? "deep"
    : "balanced"
  const complexity = (["very_low", "low", "moderate", "high", "very_high"] as const)[profile.reasoningDepth - 1]!
  return {
    detectedComplexity: complexity,
    ambiguityScore: Math.round((1 - s) * 100) / 100,
    ...(signals ? { uncertaintyScore: Math.min(1, signals.questionMarks * 0.2 + signals.missingDetails * 0.3) } : {}),
    allocatedTtl,
    globalTtlCap: ttlCap,
    reasoningMode,
    adjustmentReason: wanted > ttlCap
      ? `${adjustmentReason}; capped at the budget's ${ttlCap} cycles (wanted ${wanted})`
      : adjustmentReason,
    heuristicsUsed: [...heuristicsUsed, ...(wanted > ttlCap ? ["ttl_cap"] : [])]
  }
}

export interface Profiled {
  readonly profile: TaskProfile
  readonly depth: AdaptiveDepthConfiguration
  readonly advisories: ReadonlyArray<string>
}

export interface RevisionSignals {
  readonly passNumber: number
  readonly validationIssueCount: number
  readonly convergenceFailures: ReadonlyArray<string>
  readonly refinementsNeeded: number
}

export interface Service {
  /** Pass 0: model inference combined with text signals. `previousInPass` enforces tier stability (FR-NEW-007). */
  readonly infer: (
    request: string,
    ttlCap: number,
    llm: Llm,
    previousInPass?: TaskProfile
  ) => Effect.Effect<Profiled, RunHalt>
  /** Pass boundaries only: revise from what the pass revealed; may go down as well as up (FR-080). */
  readonly revise: (
    request: string,
    current: Profiled,
    signals: RevisionSignals,
    ttlCap: number,
    llm: Llm
  ) => Effect.Effect<Profiled & { readonly changed: boolean }, RunHalt>
}

const fallbackProfile = (signals: TextSignals): TaskProfileDimensions => ({
  reasoningDepth: 3,
  informationSufficiency: signals.sufficiency,
  expectedToolUsage: "moderate",
  outputBreadth: "moderate",
  confidenceRequirement: "medium",
  rawInference: "model inference unavailable: middle-tier defaults with the text signals' sufficiency"
})

/** Keeps a repeated inference within one reasoningDepth tier of the first. */
export const stabilize = (
  first: TaskProfileDimensions,
  next: TaskProfileDimensions
): { profile: TaskProfileDimensions; clamped: boolean } => {
  const d = Math.max(first.reasoningDepth - 1, Math.min(first.reasoningDepth + 1, next.reasoningDepth))
  return { profile: { ...next, reasoningDepth: d }, clamped: d !== next.reasoningDepth }
}

export const infer: Service["infer"] = (request, ttlCap, llm, previousInPass) =>
  Effect.gen(function*() {
    const signals = textSignals(request)
    const advisories: Array<string> = []
    const inferred = yield* llm.generate(Contracts.profileInference, { request }).pipe(
      Effect.map((r) => r.output as TaskProfileDimensions),
      Effect.catchIf(isModelFailure, (e) => {
        advisories.push(`profile inference failed (${e.message}); using text signals`)
        return Effect.succeed(fallbackProfile(signals))
      })
    )
    const heuristics = ["model_inference", "text_signals"]
    // the text signals can only lower sufficiency: vague wording is not made clear by a confident model
    let dims: TaskProfileDimensions = {
      ...inferred,
      informationSufficiency: Math.min(inferred.informationSufficiency, signals.sufficiency)
    }
    if (previousInPass) {
      const s = stabilize(previousInPass, dims)
      dims = s.profile
      if (s.clamped) heuristics.push("tier_stability_clamp")
    }
    const reason = `initial profile: depth ${dims.reasoningDepth}, sufficiency ${dims.informationSufficiency} ` +
      `(text signals: ${signals.vagueTerms} vague, ${signals.questionMarks} questions, ${signals.missingDetails} missing details)`
    const profile: TaskProfile = { profileVersion: previousInPass?.profileVersion ?? 1, ...dims }
    return { profile, depth: depthFor(dims, ttlCap, reason, heuristics, signals), advisories }
  }).pipe(traced("AdaptiveDepth.infer", { captureStackTrace: false }))

export const revise: Service["revise"] = (request, current, signals, ttlCap, llm) =>
  Effect.gen(function*() {
    const revised = yield* llm.generate(Contracts.profileUpdate, {
      request,
      currentProfile: current.profile,
      passNumber: signals.passNumber,
      validationIssueCount: signals.validationIssueCount,
      convergenceFailures: [...signals.convergenceFailures],
      refinementsNeeded: signals.refinementsNeeded
    }).pipe(
      Effect.map((r) => r.output),
      Effect.catchIf(isModelFailure, (e) => Effect.succeed({ error: e.message } as const))
    )
    if ("error" in revised) {
      return { ...current, advisories: [`profile revision failed (${revised.error}); profile kept`], changed: false }
    }
    const { adjustmentReason, ...dims } = revised
    const before = current.profile
    const changed = dims.reasoningDepth !== before.reasoningDepth ||
      dims.informationSufficiency !== before.informationSufficiency ||
      dims.expectedToolUsage !== before.expectedToolUsage ||
      dims.outputBreadth !== before.outputBreadth ||
      dims.confidenceRequirement !== before.confidenceRequirement
    if (!changed) return { ...current, advisories: [], changed: false }
    const profile: TaskProfile = { profileVersion: before.profileVersion + 1, ...dims }
    const reason =
      `v${before.profileVersion}→v${profile.profileVersion} at pass ${signals.passNumber}: ${adjustmentReason} ` +
      `(depth ${before.reasoningDepth}→${dims.reasoningDepth}; ${signals.validationIssueCount} validation issues, ` +
      `${signals.convergenceFailures.length} convergence failures, ${signals.refinementsNeeded} refinements)`
    const heuristics = [
      "profile_revision",
      ...(signals.validationIssueCount > 0 ? ["validation_issues"] : []),
      ...(signals.convergenceFailures.length > 0 ? ["convergence_failures"] : []),
      ...(signals.refinementsNeeded > 0 ? ["refinement_needs"] : [])
    ]
    return { profile, depth: depthFor(dims, ttlCap, reason, heuristics), advisories: [], changed: true }
  }).pipe(traced("AdaptiveDepth.revise", { captureStackTrace: false }))
