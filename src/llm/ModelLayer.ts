import { Config, Effect, Layer, Option } from "effect"
import * as LanguageModel from "./LanguageModel.js"
import * as Offline from "./Offline.js"
import * as Scripted from "./Scripted.js"

export const providerConfig = Config.option(
  Config.literal("openai", "offline", "scripted")("AEON_MODEL_PROVIDER").pipe(
    Config.withDescription("openai | offline | scripted; default openai when a key or base URL is set, else offline")
  )
)

/** Chooses the model from the environment: AEON_MODEL_PROVIDER, else openai when configured, else offline. */
export const layerConfig = Layer.unwrapEffect(
  Effect.gen(function*() {
    const chosen = yield* providerConfig
    const key = yield* Config.option(Config.string("AEON_LLM_API_KEY"))
    const url = yield* Config.option(Config.string("AEON_LLM_BASE_URL"))
    const provider = Option.getOrElse(chosen, () => (Option.isSome(key) || Option.isSome(url) ? "openai" : "offline"))
    // the openai client is loaded only for that provider
    if (provider === "openai") return (yield* Effect.promise(() => import("./OpenAi.js"))).layerConfig
    if (provider === "offline") return Offline.layer
    const path = yield* Scripted.scriptPathConfig
    const { script, fallback } = yield* Scripted.loadScript(path)
    return Scripted.layer(script, fallback === "offline" ? Offline.service : undefined)
  })
)

export { LanguageModel }
