import { Effect, Schema } from "effect"
import type { Plan } from "../domain/Plan.js"
import { isModelFailure, type LlmError } from "../llm/Llm.js"
import { structuralViolation, toPlan } from "../planning/PlanBuilder.js"
import { catalogText, type CatalogTool, OFFERED, offerFor, pastBound, rank } from "../planning/ToolCatalog.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import { answerShapeSection } from "../prompts/PromptViews.js"
import type { PlanOutput } from "../prompts/Schemas.js"
import * as Supervisor from "../supervisor/Supervisor.js"
import type { RunContext } from "./RunContext.js"

/**
 * The plan call: the tools offered (planning/ToolCatalog — past a bound the ones the task needs; none for a task
 * needing no tool, planned with the short direct prompt), recorded as ToolsOffered before the call, so a replay or a
 * fork sees the prompt as it was; a plan that breaks a structural rule repaired by the supervisor; a step naming a
 * tool that does not exist given one, chosen among the tools its description ranks first.
 */

/**
 * What the tool offer is chosen by: the task, and in a conversation the user's message before it too — a follow-up
 * ("and for Porto?") says nothing of the tool its turn needs; the turn before it did.
 */
const offerQuery = (ctx: RunContext) => {
  const before = ctx.events.record().conversation?.messages.findLast((m) => m.role === "user")?.text
  return before === undefined ? ctx.request : `${ctx.request}\n${before}`
}

/** The task's files and images, for a call that carries them (the plan's and the answer's). */
export const attachedTo = (ctx: RunContext) => (ctx.attachments.length > 0 ? { attachments: ctx.attachments } : {})

/** The plan could not be produced, even after repair: the run fails with this message. */
export class PlanFailedError
  extends Schema.TaggedError<PlanFailedError>()("PlanFailedError", { message: Schema.String })
{}

/** Advisories are events: a resumed run has the ones raised before the crash. */
export const advise = (ctx: RunContext, passNumber: number, advisories: ReadonlyArray<string>) =>
  Effect.forEach(advisories, (advisory) => ctx.events.emit({ _tag: "AdvisoryRaised", passNumber, advisory }), {
    discard: true
  })

export const generatePlan = (
  ctx: RunContext,
  passNumber: number,
  reasoningMode: string,
  quoted: { readonly earlierRuns?: string | undefined; readonly conversation?: string | undefined } = {}
) =>
  Effect.gen(function*() {
    const offer = offerFor(offerQuery(ctx), ctx.tools.tools)
    // every tool offered (a catalog within the bound) says nothing: the run's tools are the offer
    if (offer.selected) {
      yield* ctx.events.emit({
        _tag: "ToolsOffered",
        passNumber,
        tools: offer.tools.map((t) => t.name),
        total: offer.total,
        selected: true
      })
    }
    const shared = {
      request: ctx.request,
      ...(quoted.earlierRuns ? { earlierRuns: quoted.earlierRuns } : {}),
      ...(quoted.conversation ? { conversation: quoted.conversation } : {}),
      ...(ctx.outputSchema ? { answerShape: answerShapeSection(ctx.outputSchema.schema) } : {})
    }
    const withCatalog = (tools: ReadonlyArray<CatalogTool>) =>
      Effect.map(
        ctx.llm.generate(Contracts.planGeneration, {
          ...shared,
          // the stand-in models read the tools; the prompt shows their entries (planning/ToolCatalog)
          tools: tools.map((t) => ({
            name: t.name,
            description: t.description,
            ...(t.inputJsonSchema ? { inputSchema: t.inputJsonSchema } : {})
          })),
          toolList: catalogText(tools),
          reasoningMode,
          ...(ctx.escalationContext ? { escalationContext: ctx.escalationContext } : {})
        }, attachedTo(ctx)),
        (r): PlanOutput => r.output
      )
    const asked: Effect.Effect<PlanOutput, LlmError> = offer.noTool
      ? direct(ctx, shared).pipe(
        // a model that cannot answer the short prompt gets the whole one, with the tools
        Effect.catchIf(isModelFailure, (e) =>
          Effect.zipRight(
            Effect.zipRight(
              ctx.events.emit({
                _tag: "ToolsOffered",
                passNumber,
                tools: ctx.tools.tools.map((t) => t.name),
                total: ctx.tools.tools.length,
                selected: false
              }),
              advise(ctx, passNumber, [`the short plan prompt failed (${e.message}): planned again with the tools`])
            ),
            withCatalog(ctx.tools.tools)
          ))
      )
      : withCatalog(offer.tools)
    const output = yield* asked.pipe(
      // a plan without a goal has the task as its goal (the planner prompt lets it leave it out)
      Effect.map((r): PlanOutput => ({ ...r, goal: r.goal?.trim() ? r.goal : ctx.request })),
      Effect.catchIf(
        isModelFailure,
        (e) => Effect.fail(new PlanFailedError({ message: `plan generation failed: ${e.message}` }))
      )
    )
    return yield* wellFormed(ctx, passNumber, output)
  })

/** The plan as the model wrote it, or — when it breaks a structural rule — as the supervisor repaired it (said). */
const wellFormed = (ctx: RunContext, passNumber: number, output: PlanOutput) =>
  Effect.gen(function*() {
    const violation = structuralViolation(output)
    if (!violation) return toPlan(output)
    const repaired = yield* Supervisor.repairPlan(ctx.request, output, violation, structuralViolation, ctx.llm).pipe(
      Effect.catchTag("RepairFailedError", (e) =>
        Effect.fail(new PlanFailedError({ message: `the plan breaks "${violation}" and repair failed: ${e.message}` })))
    )
    yield* advise(ctx, passNumber, [`plan repaired by the supervisor (${violation})`])
    return toPlan(repaired.value)
  })

/** A task needing no tool: the short prompt, no catalog. */
const direct = (
  ctx: RunContext,
  shared: {
    readonly request: string
    readonly earlierRuns?: string
    readonly conversation?: string
    readonly answerShape?: string
  }
) =>
  Effect.map(
    ctx.llm.generate(Contracts.planDirect, {
      ...shared,
      ...(ctx.escalationContext ? { escalationContext: `\nEarlier attempts failed: ${ctx.escalationContext}` } : {})
    }, attachedTo(ctx)),
    (r): PlanOutput => r.output
  )

/** The tools a step naming a missing tool may take instead: every tool, or past the bound those its words rank. */
const candidatesFor = (ctx: RunContext, step: { readonly description: string; readonly tool?: string | undefined }) =>
  pastBound(ctx.tools.tools)
    ? rank(`${step.description} ${step.tool ?? ""}`, ctx.tools.tools).slice(0, OFFERED).map((r) => r.tool.name)
    : ctx.tools.names

/**
 * The tools a refinement, a subplan or the validator's review is shown by name: every tool, or past the bound the
 * plan's offer and the tools the plan uses (undefined: every tool).
 */
export const shownTools = (ctx: RunContext, plan: Plan): ReadonlyArray<string> | undefined => {
  // the offer is remembered (planning/ToolCatalog): whether it is a choice is known without listing the catalog again
  const offer = offerFor(offerQuery(ctx), ctx.tools.tools)
  if (!offer.selected || offer.noTool) return undefined
  return [...new Set([...offer.tools.map((t) => t.name), ...plan.steps.flatMap((s) => (s.tool ? [s.tool] : []))])]
}

/** Steps naming tools that do not exist: replaced by an existing tool, or marked invalid. */
export const fixMissingTools = (ctx: RunContext, passNumber: number, plan: Plan) =>
  Effect.gen(function*() {
    const steps = []
    const advisories: Array<string> = []
    for (const s of plan.steps) {
      if (!s.tool || ctx.tools.get(s.tool)) {
        steps.push(s)
        continue
      }
      const r = yield* Supervisor.replaceMissingTool(s.description, s.tool, candidatesFor(ctx, s), ctx.llm)
      advisories.push(
        r.replacement
          ? `step ${s.stepId}: tool ${s.tool} does not exist, replaced by ${r.replacement} (${r.justification})`
          : `step ${s.stepId}: tool ${s.tool} does not exist and has no replacement; step marked invalid (${r.justification})`
      )
      steps.push(r.replacement ? { ...s, tool: r.replacement } : { ...s, status: "invalid" as const })
    }
    yield* advise(ctx, passNumber, advisories)
    return { ...plan, steps }
  })
