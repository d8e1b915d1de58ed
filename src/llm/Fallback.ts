import { Array as Arr, Config, ConfigError, Context, Effect, Either, ExecutionPlan, Layer, Option } from "effect"
import { isOneOf } from "../support/OneOf.js"
import * as LanguageModel from "./LanguageModel.js"
import type { ModelError } from "./ModelErrors.js"
import * as Offline from "./Offline.js"
import { loadPriceTable, type ModelPrice } from "./Pricing.js"

/** One model of AEON_MODELS: `openai:gpt-4o-mini`, `openai@http://127.0.0.1:11434/v1:qwen2.5`, or `offline`. */
export interface ModelSpec {
  readonly provider: "openai" | "anthropic" | "google" | "offline"
  readonly baseURL?: string | undefined
  readonly model: string
}

const NAMED_PROVIDERS = ["openai", "anthropic", "google"] as const

// provider, then @ and a URL whose path holds no colon, then : and the model (which may hold colons: qwen2.5:7b)
const SPEC = /^(openai|anthropic|google)(?:@(https?:\/\/[^/\s]+?(?::\d+)?(?:\/[^:\s]*)?))?:(\S+)$/

/** Reads AEON_MODELS' list: models in order, each as a ModelSpec; a bad entry is refused, named. */
export const parseModels = (list: string): Either.Either<Arr.NonEmptyReadonlyArray<ModelSpec>, string> => {
  const entries = list.split(",").map((e) => e.trim()).filter((e) => e !== "")
  const specs: Array<ModelSpec> = []
  for (const entry of entries) {
    if (entry === "offline") {
      specs.push({ provider: "offline", model: "offline" })
      continue
    }
    const m = SPEC.exec(entry)
    if (!m) {
      return Either.left(
        `"${entry}" is not a model: write provider:model or provider@baseURL:model (openai:gpt-4o-mini, openai@http://127.0.0.1:11434/v1:qwen2.5, anthropic:claude-sonnet-5-5) or offline`
      )
    }
    const [, provider = "", baseURL, model = ""] = m
    if (!isOneOf(NAMED_PROVIDERS, provider)) return Either.left(`"${entry}" names no provider`)
    specs.push({ provider, baseURL, model })
  }
  return Arr.isNonEmptyReadonlyArray(specs) ? Either.right(specs) : Either.left("lists no model")
}

/** The model a step of the fallback plan provides. */
class Candidate extends Context.Tag("aeon/FallbackCandidate")<Candidate, LanguageModel.Service>() {}

/** A provider's failure that the next model may not share: 5xx, 429 past its retries, unreachable, timed out. */
export const isProviderFailure = (e: ModelError) =>
  e._tag === "ModelUnavailableError" || e._tag === "ModelTimeoutError" ||
  (e._tag === "ModelHttpError" && (e.status === 429 || e.status >= 500))

const why = (e: ModelError) => (e._tag === "ModelHttpError" ? `HTTP ${e.status}` : e._tag)

/** What admission counts a call at: the dearest of the models (any of them may answer). */
const dearest = (models: ReadonlyArray<LanguageModel.Service>): ModelPrice => ({
  inputPerMillion: Math.max(...models.map((m) => m.price.inputPerMillion)),
  outputPerMillion: Math.max(...models.map((m) => m.price.outputPerMillion)),
  cachedInputPerMillion: Math.max(...models.map((m) => m.price.cachedInputPerMillion ?? m.price.inputPerMillion)),
  cacheWritePerMillion: Math.max(...models.map((m) => m.price.cacheWritePerMillion ?? m.price.inputPerMillion))
})

/**
 * Models in order: a call that fails with a provider failure goes to the next (Effect's ExecutionPlan, a step per
 * model), within the call's request budget: every request sent, to any of them, counts, and none is sent past it. The
 * answer names the model that answered and those that failed before it.
 */
export const make = (models: Arr.NonEmptyReadonlyArray<LanguageModel.Service>): LanguageModel.Service => {
  if (models.length === 1) return models[0]
  const complete: LanguageModel.Service["complete"] = (request) =>
    Effect.suspend(() => {
      let sent = 0
      const failed: Array<string> = []
      const left = () => (request.maxRequests?.() ?? Number.POSITIVE_INFINITY) - sent
      // a step per model; a step's `while` says whether the previous model's failure goes on to it
      const fallsOver = (e: ModelError) => Effect.succeed(isProviderFailure(e) && left() > 0)
      const plan = ExecutionPlan.make(
        ...Arr.map(models, (model) => ({ provide: Layer.succeed(Candidate, model), while: fallsOver }))
      )
      const attempt = Effect.flatMap(Candidate, (model) => {
        // this model's own requests and what is left of the call's: the most it may send
        const before = sent
        return model.complete({
          ...request,
          maxRequests: () => left() + sent - before,
          onRequest: () => void (sent++, request.onRequest?.())
        }).pipe(
          Effect.tapError((e) => Effect.sync(() => failed.push(`${model.label}: ${why(e)}`))),
          Effect.map((response): LanguageModel.CompletionResponse => ({
            ...response,
            answeredBy: { label: model.label, price: model.price },
            ...(failed.length > 0 ? { failedModels: [...failed] } : {})
          }))
        )
      })
      return Effect.withExecutionPlan(attempt, plan)
    })
  const notices = models.flatMap((m) => (m.notice ? [m.notice] : []))
  const chain = LanguageModel.make(
    models.map((m) => m.label).join(", "),
    dearest(models),
    complete,
    notices.length > 0 ? notices.join("; ") : undefined
  )
  return {
    ...chain,
    members: models,
    unpriced: models.flatMap((m) => m.unpriced ?? []),
    // any of them may answer: each must read what the call carries
    accepts: (mediaType, byUrl) => models.every((m) => m.accepts?.(mediaType, byUrl) ?? true)
  }
}

export const modelsConfig = Config.string("AEON_MODELS").pipe(
  Config.withDescription(
    "Models in order, comma-separated (openai:gpt-4o-mini, openai@http://host/v1:model, offline): a call a provider fails goes to the next"
  ),
  Config.mapOrFail((list) =>
    Either.mapLeft(parseModels(list), (why) => ConfigError.InvalidData(["AEON_MODELS"], `AEON_MODELS ${why}`))
  )
)

/**
 * The services of a list: each openai entry with its own key when `AEON_LLM_API_KEY_<n>` (its place in the list, from
 * 1) is set, else AEON_LLM_API_KEY/OPENAI_API_KEY; the other settings (timeout, retries, streaming) are shared.
 */
export const servicesOf = (specs: Arr.NonEmptyReadonlyArray<ModelSpec>) =>
  Effect.gen(function*() {
    const OpenAi = yield* Effect.promise(() => import("./OpenAi.js"))
    const shared = yield* OpenAi.config
    const prices = yield* loadPriceTable
    // Anthropic's client loaded only when the list names it
    const claude = specs.some((s) => s.provider === "anthropic")
      ? yield* Effect.promise(() => import("./Anthropic.js"))
      : undefined
    const claudeShared = claude ? yield* claude.config : undefined
    const gemini = specs.some((s) => s.provider === "google")
      ? yield* Effect.promise(() => import("./Gemini.js"))
      : undefined
    const geminiShared = gemini ? yield* gemini.config : undefined
    const serviceOf = (spec: ModelSpec, i: number): Effect.Effect<LanguageModel.Service, ConfigError.ConfigError> =>
      spec.provider === "offline"
        ? Effect.succeed(Offline.service)
        : Effect.map(Config.option(Config.redacted(`AEON_LLM_API_KEY_${i + 1}`)), (own) =>
          spec.provider === "anthropic" && claude && claudeShared
            ? claude.fromConfig(claudeShared, prices, {
              model: spec.model,
              baseURL: spec.baseURL,
              apiKey: Option.orElse(own, () =>
                claudeShared.apiKey)
            })
            : spec.provider === "google" && gemini && geminiShared
            ? gemini.fromConfig(geminiShared, prices, {
              model: spec.model,
              baseURL: spec.baseURL,
              apiKey: Option.orElse(own, () => geminiShared.apiKey)
            })
            : OpenAi.fromConfig(shared, prices, {
              model: spec.model,
              baseURL: spec.baseURL,
              apiKey: Option.orElse(own, () => shared.apiKey)
            }))
    return yield* Effect.zipWith(
      serviceOf(Arr.headNonEmpty(specs), 0),
      Effect.forEach(Arr.tailNonEmpty(specs), (spec, i) =>
        serviceOf(spec, i + 1)),
      (first, rest) => Arr.prepend(rest, first)
    )
  })

/** The model of AEON_MODELS: its list, in order, with fallback. */
export const layerConfig = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.flatMap(modelsConfig, servicesOf).pipe(Effect.map(make))
)

/** The library's: a fallback model from a list (`["openai:gpt-4o-mini", "openai@http://…/v1:qwen2.5"]`). */
export const layer = (list: ReadonlyArray<string>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Either.match(parseModels(list.join(",")), {
      onLeft: (why) => Effect.dieMessage(`models ${why}`),
      onRight: (specs) => Effect.map(servicesOf(specs), make)
    })
  )
