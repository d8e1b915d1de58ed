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

/** A model missing from the table is priced at this rate rather than free, so cost caps stay meaningful. */
export const UNKNOWN_MODEL_PRICE: ModelPrice = { inputPerMillion: 2.5, outputPerMillion: 10 }

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

export const priceOf = (table: Readonly<Record<string, ModelPrice>>, model: string): ModelPrice =>
  table[model] ?? UNKNOWN_MODEL_PRICE

export const costOf = (price: ModelPrice, inputTokens: number, outputTokens: number): number =>
  (inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1_000_000
