/**
 * An agent's model, built as AEON_MODELS builds one (the provider's settings from the environment, the model named
 * by the agent) and once per model in a process: an agent's runs share its client.
 */
import { Array as Arr, Effect, Either } from "effect"
import * as ByPhase from "../llm/ByPhase.js"
import * as Fallback from "../llm/Fallback.js"
import type * as LanguageModel from "../llm/LanguageModel.js"
import { messageOf } from "../support/Thrown.js"
import { type AgentModel, InvalidAgentError } from "./Agent.js"

const listOf = (text: string, field: string) =>
  Either.match(Fallback.parseModels(text), {
    onLeft: (why) => Effect.fail(new InvalidAgentError({ message: `${field}: ${why}` })),
    onRight: (specs) =>
      Effect.map(
        Effect.mapError(
          Fallback.servicesOf(specs),
          (e) => new InvalidAgentError({ message: `${field}: ${messageOf(e)}` })
        ),
        (services) => (services.length === 1 ? Arr.headNonEmpty(services) : Fallback.make(services))
      )
  })

/** The model service of an agent's `model` (INVALID_AGENT naming the field when it cannot be made). */
export const build = (spec: AgentModel): Effect.Effect<LanguageModel.Service, InvalidAgentError> =>
  Effect.gen(function*() {
    const base = yield* listOf(spec.provider === "offline" ? "offline" : `${spec.provider}:${spec.model}`, "model")
    const routes: Partial<Record<ByPhase.ModelPhase, LanguageModel.Service>> = {}
    for (const phase of ByPhase.PHASES) {
      const list = spec.byPhase?.[phase]
      if (list !== undefined) routes[phase] = yield* listOf(list, `model.byPhase.${phase}`)
    }
    return Object.keys(routes).length === 0 ? base : ByPhase.make(base, routes)
  })

/** An agent's model: the agents' cache's when there is one, else built for it. */
export const modelOf = (
  agents:
    | { readonly modelFor: (spec: AgentModel) => Effect.Effect<LanguageModel.Service, InvalidAgentError> }
    | undefined,
  spec: AgentModel
) => (agents ? agents.modelFor(spec) : build(spec))

/** A cache of built models, by their spec. */
export const cache = () => {
  const built = new Map<string, LanguageModel.Service>()
  return (spec: AgentModel) =>
    Effect.suspend(() => {
      const key = JSON.stringify(spec)
      const found = built.get(key)
      return found ? Effect.succeed(found) : Effect.tap(build(spec), (m) => Effect.sync(() => built.set(key, m)))
    })
}
