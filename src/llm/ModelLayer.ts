import { Config, Data, Effect, Layer, Option } from "effect"
import { isOneOf } from "../support/OneOf.js"
import * as LanguageModel from "./LanguageModel.js"
import * as Offline from "./Offline.js"
import * as Scripted from "./Scripted.js"

const providers = ["openai", "anthropic", "google", "offline", "scripted"] as const

/** AEON_MODEL_PROVIDER set to something else: one line that names the variable and the choices. */
export class ModelConfigError extends Data.TaggedError("ModelConfigError")<{ readonly message: string }> {}

export const providerConfig = Config.option(
  Config.string("AEON_MODEL_PROVIDER").pipe(
    Config.withDescription(
      "openai | anthropic | google | offline | scripted; default openai when a key or base URL is set, anthropic or google when only ANTHROPIC_API_KEY or GEMINI_API_KEY/GOOGLE_API_KEY is, else offline"
    )
  )
).pipe(Effect.flatMap(Option.match({
  onNone: () => Effect.succeed(Option.none<(typeof providers)[number]>()),
  onSome: (p) =>
    isOneOf(providers, p)
      ? Effect.succeed(Option.some(p))
      : Effect.fail(
        new ModelConfigError({ message: `AEON_MODEL_PROVIDER must be one of ${providers.join(", ")} (got ${p})` })
      )
})))

/**
 * Chooses the model from the environment: AEON_MODELS (models in order, with fallback), else AEON_MODEL_PROVIDER,
 * else openai when configured, else offline.
 */
export const layerConfig = Layer.unwrapEffect(
  Effect.gen(function*() {
    const chosen = yield* chosenLayer
    // a model per phase around it, when AEON_MODELS_BY_PHASE is set
    if (Option.isNone(yield* Config.option(Config.string("AEON_MODELS_BY_PHASE")))) return chosen
    return (yield* Effect.promise(() => import("./ByPhase.js"))).layerAround(chosen)
  })
)

const chosenLayer = Effect.gen(function*() {
  // a list of models in order, with fallback, when AEON_MODELS is set
  if (Option.isSome(yield* Config.option(Config.string("AEON_MODELS")))) {
    return (yield* Effect.promise(() => import("./Fallback.js"))).layerConfig
  }
  const chosen = yield* providerConfig
  const key = yield* Config.option(
    Config.string("AEON_LLM_API_KEY").pipe(Config.orElse(() => Config.string("OPENAI_API_KEY")))
  )
  const url = yield* Config.option(
    Config.string("AEON_LLM_BASE_URL").pipe(Config.orElse(() => Config.string("OPENAI_BASE_URL")))
  )
  const anthropicKey = yield* Config.option(Config.string("ANTHROPIC_API_KEY"))
  const googleKey = yield* Config.option(
    Config.string("GEMINI_API_KEY").pipe(Config.orElse(() => Config.string("GOOGLE_API_KEY")))
  )
  const provider = Option.getOrElse(
    chosen,
    () =>
      Option.isSome(key) || Option.isSome(url)
        ? "openai"
        : Option.isSome(anthropicKey)
        ? "anthropic"
        : Option.isSome(googleKey)
        ? "google"
        : "offline"
  )
  if (provider === "google") return (yield* Effect.promise(() => import("./Gemini.js"))).layerConfig
  // each provider's client is loaded only for that provider
  if (provider === "anthropic") return (yield* Effect.promise(() => import("./Anthropic.js"))).layerConfig
  // the openai client is loaded only for that provider
  if (provider === "openai") return (yield* Effect.promise(() => import("./OpenAi.js"))).layerConfig
  if (provider === "offline") return Offline.layer
  const path = yield* Scripted.scriptPathConfig
  const { script, fallback } = yield* Scripted.loadScript(path)
  return Scripted.layer(script, fallback === "offline" ? Offline.service : undefined)
})

export { LanguageModel }
