import { Config, ConfigError, Either, Schema } from "effect"

/** USD per million tokens. */
export interface ModelPrice {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
}

export const FREE: ModelPrice = { inputPerMillion: 0, outputPerMillion: 0 }

export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10 },
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  "gpt-4.1": { inputPerMillion: 2, outputPerMillion: 8 },
  "gpt-4.1-mini": { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  "gpt-4.1-nano": { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  "gpt-5": { inputPerMillion: 1.25, outputPerMillion: 10 },
  "gpt-5-mini": { inputPerMillion: 0.25, outputPerMillion: 2 },
  "o4-mini": { inputPerMillion: 1.1, outputPerMillion: 4.4 }
}

const PriceTable = Schema.parseJson(
  Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ inputPerMillion: Schema.Number, outputPerMillion: Schema.Number })
  })
)

/** AEON_PRICE_TABLE: JSON `{"model": {"inputPerMillion": n, "outputPerMillion": n}}`, merged over the defaults; a bad table is a ConfigError naming it. */
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

/** A model missing from the table (a local one, say) costs nothing here: `unpricedNotice` says so in its results. */
export const priceOf = (table: Readonly<Record<string, ModelPrice>>, model: string): ModelPrice => table[model] ?? FREE

/** What a run's result says when its model has no price: its cost, and the cost cap, count it as free. */
export const unpricedNotice = (table: Readonly<Record<string, ModelPrice>>, model: string): string | undefined =>
  table[model]
    ? undefined
    : `model ${model} has no price (AEON_PRICE_TABLE can give it one): its calls count as $0, and maxCostUsd does not limit them`

export const costOf = (price: ModelPrice, inputTokens: number, outputTokens: number): number =>
  (inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1_000_000
