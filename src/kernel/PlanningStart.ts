import { Effect, Option } from "effect"
import { depthFor, type Profiled } from "../adaptive/AdaptiveDepth.js"
import type { RunHalt } from "../domain/Errors.js"
import type { RecalledMemory } from "../domain/Memory.js"
import type { Plan } from "../domain/Plan.js"
import { roughTokens } from "../memory/Relevance.js"
import type { MemoryFailedError } from "../memory/RunMemory.js"
import { PromptId } from "../prompts/PromptId.js"
import { earlierRunsSection } from "../prompts/PromptViews.js"
import { templates } from "../prompts/Templates.js"
import { conversationSection } from "./ConversationContext.js"
import type { RunContext } from "./RunContext.js"

/**
 * What a run's planning starts from, before any model call: an earlier converged run's plan for the same task (no
 * profile or plan call), else the memories of the user's earlier runs the plan prompt quotes — and the profile a
 * plan that needs no inference runs with.
 */
export interface PlanningStart {
  readonly reused?: Plan | undefined
  /** The plan prompt's section of recalled memories (PromptViews.earlierRunsSection). */
  readonly earlierRuns?: string | undefined
  /** The conversation the run is a turn of (kernel/ConversationContext). */
  readonly conversation?: string | undefined
}

/** Recalled memories take at most this share of the plan prompt's size without them. */
export const NOTES_SHARE = 0.5

/** A profile given, not inferred: a simple iteration's one shallow pass, or a reused plan's two passes. */
const givenProfile = (
  reasoningDepth: 1 | 2,
  ttlCap: number,
  why: string,
  reason: string,
  heuristic: string
): Profiled => {
  const profile = {
    profileVersion: 1,
    reasoningDepth,
    informationSufficiency: 1,
    expectedToolUsage: "minimal",
    outputBreadth: "narrow",
    confidenceRequirement: "low",
    rawInference: why
  } as const
  return { profile, depth: depthFor(profile, ttlCap, reason, [heuristic]), advisories: [] }
}

export const singlePassProfile = () =>
  givenProfile(1, 1, "simple mode: one shallow pass, no profiling", "simple mode: a single shallow pass", "simple_mode")

/** A plan that converged before: an execution pass, and one more to refine it if it falls short now. */
export const reusedPlanProfile = (ctx: RunContext) =>
  ctx.singlePass
    ? singlePassProfile()
    : givenProfile(2, ctx.budget.ttl, "a plan reused: no profiling", "a plan that converged before", "plan_reused")

/** The memories that fit the plan prompt's share, best first. */
const withinShare = (ctx: RunContext, memories: ReadonlyArray<RecalledMemory>) => {
  const promptSize = roughTokens(
    templates[PromptId.PLAN_GENERATION_SYSTEM] + templates[PromptId.PLAN_GENERATION_USER] + ctx.request +
      JSON.stringify(ctx.toolInfos)
  )
  let left = Math.floor(promptSize * NOTES_SHARE)
  return memories.filter((m) => (left -= roughTokens(m.text) + 20) >= 0)
}

const failed = (ctx: RunContext, passNumber: number) => (e: MemoryFailedError) =>
  Effect.as(
    ctx.events.emit({
      _tag: "AdvisoryRaised",
      passNumber,
      advisory: `memory unavailable, planned without it: ${e.reason}`
    }),
    {}
  )

/** A plan to start from: the run's first attempt only (a later one plans afresh, within what the budget left). */
const reuse = (ctx: RunContext, passNumber: number) =>
  Effect.gen(function*() {
    const found = ctx.memory?.reusablePlan && ctx.firstPass === 0 && ctx.escalationContext === undefined
      ? yield* ctx.memory.reusablePlan
      : Option.none()
    if (Option.isNone(found)) return undefined
    const { match, plan, runId, task } = found.value
    yield* ctx.events.emit({ _tag: "PlanReused", passNumber, fromRun: runId, match, task })
    return plan
  })

/**
 * The conversation first (a turn's task means what it means in its conversation, a task's words with its files what
 * they mean with those files: neither reuses an earlier run's plan), then memory.
 */
export const planningStart = (ctx: RunContext, passNumber: number): Effect.Effect<PlanningStart, RunHalt> =>
  Effect.gen(function*() {
    const conversation = yield* conversationSection(ctx, passNumber)
    const mayReuse = conversation === undefined && !ctx.conversation && ctx.attachments.length === 0
    const remembered = yield* fromMemory(ctx, passNumber, mayReuse)
    return conversation === undefined ? remembered : { ...remembered, conversation }
  })

const fromMemory = (ctx: RunContext, passNumber: number, mayReuse: boolean): Effect.Effect<PlanningStart> =>
  Effect.gen(function*() {
    if (!ctx.memory) return {}
    const reused = mayReuse ? yield* reuse(ctx, passNumber) : undefined
    if (reused) return { reused }
    // recalled once a run: a later attempt (an iteration, the escalation) quotes what the first recalled
    const earlier = ctx.events.record().recalled
    if (earlier) return { earlierRuns: earlierRunsSection(earlier.memories) }
    const memories = withinShare(ctx, yield* ctx.memory.recall(ctx.request))
    if (memories.length === 0) return {}
    yield* ctx.events.emit({ _tag: "MemoryRecalled", passNumber, memories })
    return { earlierRuns: earlierRunsSection(memories) }
  }).pipe(Effect.catchTag("MemoryFailedError", failed(ctx, passNumber)))
