import { Config, ConfigError, Effect, Either, Layer } from "effect"
import { PromptId } from "../prompts/PromptId.js"
import { isOneOf } from "../support/OneOf.js"
import * as Fallback from "./Fallback.js"
import * as LanguageModel from "./LanguageModel.js"
import type { ModelPrice } from "./Pricing.js"

/**
 * A model per phase of a run (AEON_MODELS_BY_PHASE): planning, a step's reasoning, the reviews (validation,
 * convergence, the task's profile) and the answer may each go to a model of their own, each a fallback list; the
 * calls of no phase named (repairs, conversation summaries, rubrics) go to the run's model. Each call is made by its
 * phase's model as that model's own — admitted against the budget at its price, recorded under its label —, so a
 * run's usage, cost and `llmCalls` say which model made each call.
 */
export const PHASES = ["plan", "step", "review", "answer"] as const
export type ModelPhase = (typeof PHASES)[number]

const PHASE_OF: Partial<Record<string, ModelPhase>> = {
  [PromptId.PLAN_GENERATION_USER]: "plan",
  [PromptId.PLAN_DIRECT_USER]: "plan",
  [PromptId.RECURSIVE_PLAN_GENERATION_USER]: "plan",
  [PromptId.RECURSIVE_SUBPLAN_GENERATION_USER]: "plan",
  [PromptId.RECURSIVE_REFINEMENT_USER]: "plan",
  [PromptId.REASONING_STEP_USER]: "step",
  [PromptId.VALIDATION_SEMANTIC_USER]: "review",
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: "review",
  [PromptId.TASKPROFILE_INFERENCE_USER]: "review",
  [PromptId.TASKPROFILE_UPDATE_USER]: "review",
  [PromptId.ANSWER_SYNTHESIS_USER]: "answer",
  [PromptId.ANSWER_TYPED_USER]: "answer"
}

/** The phase a prompt belongs to (undefined: the run's model answers it). */
export const phaseOf = (promptId: string): ModelPhase | undefined => PHASE_OF[promptId]

/** `base` for every call, `routes` for the calls of their phase. */
export const make = (
  base: LanguageModel.Service,
  routes: Partial<Record<ModelPhase, LanguageModel.Service>>
): LanguageModel.Service => {
  const pick = (promptId: string) => {
    const phase = phaseOf(promptId)
    return (phase && routes[phase]) || base
  }
  const all = [base, ...Object.values(routes)].filter((m, i, ms) => ms.indexOf(m) === i)
  const label = [
    ...PHASES.flatMap((p) => (routes[p] ? [`${p}=${routes[p].label}`] : [])),
    `else ${base.label}`
  ].join("; ")
  return {
    ...base,
    label,
    complete: (request) => pick(request.promptId).complete(request),
    generate: (contract, input, options) => pick(contract.id).generate(contract, input, options),
    wrapped: (around, options) => {
      const made = new Map<LanguageModel.Service, { readonly generate: LanguageModel.Generate<any> }>()
      const of = (m: LanguageModel.Service) => {
        let w = made.get(m)
        if (w === undefined) made.set(m, w = m.wrapped(around, options))
        return w
      }
      return { generate: (contract, input, opts) => of(pick(contract.id)).generate(contract, input, opts) }
    },
    members: all.flatMap((m) => [m, ...(m.members ?? [])]),
    unpriced: [...new Set(all.flatMap((m) => m.unpriced ?? []))],
    priceFor: (promptId) => pick(promptId).price,
    // the plan's and the answer's models read a task's attachments
    accepts: (mediaType, byUrl) =>
      [routes.plan ?? base, routes.answer ?? base].every((m) => m.accepts?.(mediaType, byUrl) ?? true),
    notice: all.flatMap((m) => (m.notice ? [m.notice] : [])).join("; ") || undefined
  }
}

/** AEON_MODELS_BY_PHASE: `plan=openai:gpt-4.1,openai:gpt-4o-mini;review=openai:gpt-4o-mini;answer=anthropic:…`. */
export const parsePhases = (text: string): Either.Either<Partial<Record<ModelPhase, string>>, string> => {
  const routes: Partial<Record<ModelPhase, string>> = {}
  for (const part of text.split(";").map((p) => p.trim()).filter((p) => p !== "")) {
    const [phase, list] = [part.slice(0, part.indexOf("=")).trim(), part.slice(part.indexOf("=") + 1).trim()]
    if (!part.includes("=") || !isOneOf(PHASES, phase) || list === "") {
      return Either.left(
        `"${part}" is not phase=models (phases: ${PHASES.join(", ")}; models as AEON_MODELS lists them)`
      )
    }
    const checked = Fallback.parseModels(list)
    if (Either.isLeft(checked)) return Either.left(`${phase}: ${checked.left}`)
    routes[phase] = list
  }
  return Either.right(routes)
}

export const phasesConfig = Config.string("AEON_MODELS_BY_PHASE").pipe(
  Config.withDescription("A model (a fallback list) per phase: plan=…;step=…;review=…;answer=…"),
  Config.mapOrFail((text) =>
    Either.mapLeft(
      parsePhases(text),
      (why) => ConfigError.InvalidData(["AEON_MODELS_BY_PHASE"], `AEON_MODELS_BY_PHASE: ${why}`)
    )
  )
)

/** The run's model (as configured without phases), with the phases' models around it. */
export const layerAround = <E, R>(base: Layer.Layer<LanguageModel.LanguageModel, E, R>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      const routes = yield* phasesConfig
      const services: Partial<Record<ModelPhase, LanguageModel.Service>> = {}
      for (const phase of PHASES) {
        const list = routes[phase]
        if (list === undefined) continue
        services[phase] = Fallback.make(yield* Fallback.servicesOf(Either.getOrThrow(Fallback.parseModels(list))))
      }
      return make(model, services)
    })
  ).pipe(Layer.provide(base))

/** The price a call of `promptId` is made at (a model per phase), else the model's. */
export const priceFor = (model: LanguageModel.Service, promptId: string): ModelPrice =>
  model.priceFor?.(promptId) ?? model.price
