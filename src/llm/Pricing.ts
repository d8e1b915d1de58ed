import { Config, ConfigError, Either, Schema } from "effect"
import { roundUsd } from "../domain/Budget.js"

/** USD per million tokens. */
export interface ModelPrice {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
  /** Input tokens read from the provider's prompt cache; the input rate when not given. */
  readonly cachedInputPerMillion?: number | undefined
  /** Input tokens written to the provider's prompt cache (Anthropic's 5-minute cache); the input rate when not given. */
  readonly cacheWritePerMillion?: number | undefined
}

export const FREE: ModelPrice = { inputPerMillion: 0, outputPerMillion: 0 }

export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10, cachedInputPerMillion: 1.25 },
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6, cachedInputPerMillion: 0.075 },
  "gpt-4.1": { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.5 },
  "gpt-4.1-mini": { inputPerMillion: 0.4, outputPerMillion: 1.6, cachedInputPerMillion: 0.1 },
  "gpt-4.1-nano": { inputPerMillion: 0.1, outputPerMillion: 0.4, cachedInputPerMillion: 0.025 },
  "gpt-5": { inputPerMillion: 1.25, outputPerMillion: 10, cachedInputPerMillion: 0.125 },
  "gpt-5-mini": { inputPerMillion: 0.25, outputPerMillion: 2, cachedInputPerMillion: 0.025 },
  "o4-mini": { inputPerMillion: 1.1, outputPerMillion: 4.4, cachedInputPerMillion: 0.275 },
  // Anthropic's published rates (platform.claude.com's model pages): a cache read and a write to the 5-minute cache
  // at the rates each page gives (0.1× and 1.25× the input rate, but 0.05× and 1.25× for Opus 5.5). Models whose
  // page gives no cache rates (Fable) or a rate by tier (Haiku 5.5) are not priced: AEON_PRICE_TABLE can price them.
  "claude-opus-5-5": {
    inputPerMillion: 4,
    outputPerMillion: 20,
    cachedInputPerMillion: 0.2,
    cacheWritePerMillion: 5
  },
  "claude-opus-5": {
    inputPerMillion: 5,
    outputPerMillion: 25,
    cachedInputPerMillion: 0.5,
    cacheWritePerMillion: 6.25
  },
  "claude-sonnet-5-5": {
    inputPerMillion: 2,
    outputPerMillion: 10,
    cachedInputPerMillion: 0.2,
    cacheWritePerMillion: 2.5
  },
  "claude-sonnet-5": {
    inputPerMillion: 2,
    outputPerMillion: 10,
    cachedInputPerMillion: 0.2,
    cacheWritePerMillion: 2.5
  },
  "claude-opus-4-1": {
    inputPerMillion: 15,
    outputPerMillion: 75,
    cachedInputPerMillion: 1.5,
    cacheWritePerMillion: 18.75
  },
  "claude-sonnet-4-5": {
    inputPerMillion: 3,
    outputPerMillion: 15,
    cachedInputPerMillion: 0.3,
    cacheWritePerMillion: 3.75
  },
  "claude-haiku-4-5": {
    inputPerMillion: 1,
    outputPerMillion: 5,
    cachedInputPerMillion: 0.1,
    cacheWritePerMillion: 1.25
  },
  // Google: prompts up to 200k tokens; cached content at its context-caching rate
  "gemini-2.5-pro": { inputPerMillion: 1.25, outputPerMillion: 10, cachedInputPerMillion: 0.31 },
  "gemini-2.5-flash": { inputPerMillion: 0.3, outputPerMillion: 2.5, cachedInputPerMillion: 0.075 },
  "gemini-2.5-flash-lite": { inputPerMillion: 0.1, outputPerMillion: 0.4, cachedInputPerMillion: 0.025 }
}

const PriceTable = Schema.parseJson(
  Schema.Record({
    key: Schema.String,
    value: Schema.Struct({
      inputPerMillion: Schema.Number,
      outputPerMillion: Schema.Number,
      cachedInputPerMillion: Schema.optional(Schema.Number),
      cacheWritePerMillion: Schema.optional(Schema.Number)
    })
  })
)

/** AEON_PRICE_TABLE: JSON `{"model": {"inputPerMillion": n, "outputPerMillion": n, "cachedInputPerMillion"?: n}}`, merged over the defaults; a bad table is a ConfigError naming it. */
export const loadPriceTable = Config.string("AEON_PRICE_TABLE").pipe(
  Config.withDescription("JSON price table per model (USD per million tokens), merged over the built-in table"),
  Config.withDefault(""),
  Config.mapOrFail((raw) =>
    raw === ""
      ? Either.right(DEFAULT_PRICES)
      : Schema.decodeUnknownEither(PriceTable)(raw).pipe(
        Either.map((overrides) => ({ ...DEFAULT_PRICES, ...overrides })),
        Either.mapLeft((e) => ConfigError.InvalidData(["AEON_PRICE_TABLE"], `not a valid price table: ${e.message}`))
      )
  )
)

/**
 * The model's price in the table: by its id, else by the id a router or a dated release names the same model with —
 * "openai/gpt-4o-mini" (OpenRouter) and "gpt-4o-mini-2024-07-18" (a dated snapshot) are priced as gpt-4o-mini.
 */
export const findPrice = (table: Readonly<Record<string, ModelPrice>>, model: string): ModelPrice | undefined => {
  const undated = (id: string) => id.replace(/-(?:\d{4}-\d{2}-\d{2}|\d{8})$/, "")
  const bare = model.slice(model.lastIndexOf("/") + 1)
  return table[model] ?? table[undated(model)] ?? table[bare] ?? table[undated(bare)]
}

/** A model missing from the table (a local one, say) costs nothing here: `unpricedNotice` says so in its results. */
export const priceOf = (table: Readonly<Record<string, ModelPrice>>, model: string): ModelPrice =>
  findPrice(table, model) ?? FREE

/** The words every unpriced model's notice has (the CLI's summary says "cost unknown" when a run's advisories do). */
export const UNPRICED = "has no price"

/** What a run's result says when its model has no price: its cost, and the cost cap, count it as free. */
export const unpricedNotice = (table: Readonly<Record<string, ModelPrice>>, model: string): string | undefined =>
  findPrice(table, model)
    ? undefined
    : `model ${model} ${UNPRICED} (AEON_PRICE_TABLE can give it one): its calls count as $0, and maxCostUsd does not limit them`

/** Whether a run's cost is unknown: one of its models had no price. */
export const costUnknown = (advisories: ReadonlyArray<string>) => advisories.some((a) => a.includes(UNPRICED))

/** The refusal of a cost cap that cannot be enforced: the models without a price, and how to give them one. */
export const unenforceableCostCap = (models: ReadonlyArray<string>) =>
  `maxCostUsd cannot be enforced: model ${models.join(", ")} ${UNPRICED}. Price it with AEON_PRICE_TABLE, e.g. ` +
  `AEON_PRICE_TABLE='{"${models[0]}":{"inputPerMillion":0.15,"outputPerMillion":0.6}}' (USD per million tokens), ` +
  `or leave maxCostUsd out`

/**
 * What a call costs: `cachedTokens` of its input at the cached rate, `writtenTokens` (written to the cache) at the
 * cache-write rate, the rest of it at the input rate.
 */
export const costOf = (
  price: ModelPrice,
  inputTokens: number,
  outputTokens: number,
  cachedTokens = 0,
  writtenTokens = 0
): number => {
  const cached = Math.min(cachedTokens, inputTokens)
  const written = Math.min(writtenTokens, inputTokens - cached)
  return roundUsd(
    ((inputTokens - cached - written) * price.inputPerMillion +
      cached * (price.cachedInputPerMillion ?? price.inputPerMillion) +
      written * (price.cacheWritePerMillion ?? price.inputPerMillion) +
      outputTokens * price.outputPerMillion) / 1_000_000
  )
}
