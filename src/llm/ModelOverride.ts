import { Option, Redacted } from "effect"

/** What one model of a fallback list sets for itself (AEON_MODELS); the rest comes from the provider's settings. */
export interface ModelOverride {
  readonly model?: string | undefined
  readonly baseURL?: string | undefined
  readonly apiKey?: Option.Option<Redacted.Redacted> | undefined
}

/** The settings every provider's client shares. */
interface Connection {
  readonly model: string
  readonly baseURL: Option.Option<string>
  readonly apiKey: Option.Option<Redacted.Redacted>
  readonly timeoutMs: number
  readonly maxRetries: number
}

/** A provider's connection options: its settings, with what one model of a list overrides. */
export const connectionOf = (c: Connection, over: ModelOverride) => ({
  apiKey: Option.getOrUndefined(Option.map(over.apiKey ?? c.apiKey, Redacted.value)),
  baseURL: over.baseURL ?? Option.getOrUndefined(c.baseURL),
  model: over.model ?? c.model,
  timeoutMs: c.timeoutMs,
  maxRetries: c.maxRetries
})
