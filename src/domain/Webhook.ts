/**
 * A run's webhook: where its events are POSTed (Standard Webhooks), which of them, and the operator's allow list.
 */
import { Config, ConfigError, Context, Effect, Either, Layer, Option, Redacted, Schema } from "effect"
import { createHmac } from "node:crypto"

/** The run events a webhook may be told. */
export const WebhookEvent = Schema.Literal("run.started", "run.awaiting_input", "run.finished")
export type WebhookEvent = typeof WebhookEvent.Type

/** Where a run's events go, and which (`run.finished` alone unless said). */
export const WebhookSpec = Schema.Struct({
  url: Schema.String.pipe(Schema.maxLength(2_000)).annotations({
    description: "the URL each event is POSTed to (its host must be in the server's AEON_WEBHOOK_HOSTS)"
  }),
  events: Schema.optional(
    Schema.Array(WebhookEvent).annotations({
      description: "the events to send: run.started, run.awaiting_input, run.finished (the default: run.finished)"
    })
  )
}).annotations({ identifier: "WebhookSpec" })
export type WebhookSpec = typeof WebhookSpec.Type

/** A webhook's URL whose host the operator does not allow (or not http(s)): refused at the run's start. */
export class WebhookUrlNotAllowedError
  extends Schema.TaggedError<WebhookUrlNotAllowedError>()("WEBHOOK_URL_NOT_ALLOWED", { url: Schema.String })
{
  override get message() {
    return `the webhook URL ${this.url} is not allowed: its host must be one of the server's AEON_WEBHOOK_HOSTS`
  }
}

/** The events a spec asks for. */
export const eventsOf = (spec: WebhookSpec): ReadonlyArray<WebhookEvent> =>
  spec.events && spec.events.length > 0 ? [...new Set(spec.events)] : ["run.finished"]

/**
 * Whether the operator allows a URL: http or https, its `host:port` or its host among `hosts` (none by default: no
 * webhook is sent until the operator names where).
 */
export const urlAllowed = (url: string, hosts: ReadonlyArray<string>) => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false
  if (parsed.username !== "" || parsed.password !== "") return false
  const host = parsed.hostname.toLowerCase().replace(/^\[|\]$/g, "")
  const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80")
  const allowed = hosts.map((h) => h.trim().toLowerCase()).filter((h) => h !== "")
  return allowed.includes(`${host}:${port}`) || allowed.includes(host)
}

/**
 * The Standard Webhooks signature of a message: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, the key the
 * base64 after `whsec_`.
 */
export const signature = (secret: string, id: string, timestampSeconds: number, body: string) => {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64")
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`
}

/** The operator's webhook settings: where webhooks may go, the signing secret, a default URL, the retries. */
export interface Settings {
  /** `host:port` or host entries a webhook URL must match (AEON_WEBHOOK_HOSTS; none: no webhook is allowed). */
  readonly hosts: ReadonlyArray<string>
  /** The Standard Webhooks secret, `whsec_<base64>` (AEON_WEBHOOK_SECRET). */
  readonly secret: Option.Option<Redacted.Redacted>
  /** Every run's webhook unless it names its own (AEON_WEBHOOK_URL; `run.finished`). */
  readonly defaultUrl: Option.Option<string>
  /** The first retry's delay, doubled at each attempt (AEON_WEBHOOK_RETRY_MS). */
  readonly retryMs: number
  /** Attempts before a delivery is given up (AEON_WEBHOOK_ATTEMPTS). */
  readonly attempts: number
  /** How long an attempt waits for the receiver's answer. */
  readonly timeoutMs: number
}
export class WebhookSettings extends Context.Tag("aeon/WebhookSettings")<WebhookSettings, Settings>() {}

/** No webhook allowed (a process the operator has not configured). */
export const noWebhooks: Settings = {
  hosts: [],
  secret: Option.none(),
  defaultUrl: Option.none(),
  retryMs: 10_000,
  attempts: 8,
  timeoutMs: 10_000
}

/** The settings from the environment: a webhook host needs a secret to sign with, a default URL an allowed host. */
export const settingsConfig: Config.Config<Settings> = Config.all({
  hosts: Config.string("AEON_WEBHOOK_HOSTS").pipe(
    Config.withDefault(""),
    Config.map((s) => s.split(",").map((h) => h.trim()).filter((h) => h !== ""))
  ),
  secret: Config.option(Config.redacted("AEON_WEBHOOK_SECRET")),
  defaultUrl: Config.option(Config.string("AEON_WEBHOOK_URL")),
  retryMs: Config.integer("AEON_WEBHOOK_RETRY_MS").pipe(Config.withDefault(10_000)),
  attempts: Config.integer("AEON_WEBHOOK_ATTEMPTS").pipe(Config.withDefault(8))
}).pipe(
  Config.mapOrFail((c) => {
    const refused = (message: string) => Either.left(ConfigError.InvalidData([], message))
    if (c.hosts.length > 0 && Option.isNone(c.secret)) {
      return refused("AEON_WEBHOOK_SECRET (whsec_<base64>) is needed to sign the webhooks AEON_WEBHOOK_HOSTS allows")
    }
    if (Option.isSome(c.defaultUrl) && !urlAllowed(c.defaultUrl.value, c.hosts)) {
      return refused(`AEON_WEBHOOK_URL ${c.defaultUrl.value}: its host must be one of AEON_WEBHOOK_HOSTS`)
    }
    if (c.retryMs < 1 || c.attempts < 1) return refused("AEON_WEBHOOK_RETRY_MS and AEON_WEBHOOK_ATTEMPTS must be ≥ 1")
    return Either.right({ ...c, timeoutMs: 10_000 })
  })
)

export const settingsLayer = Layer.effect(WebhookSettings, Effect.orDie(settingsConfig))
export const settingsLayerConfig = Layer.effect(WebhookSettings, settingsConfig)

/**
 * A run's webhook as it is stored: its own, else (a run no other run called) the server's default; refused, coded,
 * when its host is not allowed.
 */
export const webhookOf = (
  spec: WebhookSpec | undefined,
  settings: Settings,
  child: boolean
): Either.Either<
  { readonly url: string; readonly events: ReadonlyArray<WebhookEvent> } | undefined,
  WebhookUrlNotAllowedError
> => {
  const chosen = spec ??
    (child ? undefined : Option.getOrUndefined(Option.map(settings.defaultUrl, (url) => ({ url }))))
  if (chosen === undefined) return Either.right(undefined)
  if (!urlAllowed(chosen.url, settings.hosts)) return Either.left(new WebhookUrlNotAllowedError({ url: chosen.url }))
  return Either.right({ url: chosen.url, events: eventsOf(chosen) })
}
