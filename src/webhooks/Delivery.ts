/**
 * The webhooks' delivery: each delivery the outbox holds (store/Outbox) POSTed, signed as Standard Webhooks, to the
 * address its host resolves to (resolved once, checked against the allow list, and that address called; redirects not
 * followed), within a timeout; a refusal (non-2xx), a timeout or a refused connection retried with a doubling delay,
 * the same `webhook-id` each time, until the attempts run out. Each attempt is recorded on the run.
 */
import { Array as Arr, Clock, Duration, Effect, Layer, Option, Redacted } from "effect"
import { lookup } from "node:dns/promises"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import { type Settings, signature, urlAllowed, WebhookSettings } from "../domain/Webhook.js"
import { type Delivery, Outbox } from "../store/Outbox.js"
import { onOneProcess } from "../support/Background.js"

/** What an attempt came to: the receiver's status, or why there was none. */
interface Outcome {
  readonly httpStatus?: number | undefined
  readonly error?: string | undefined
}

/** A lookup that answers the one address resolved before (the one checked): the name is not resolved again. */
const pinned = (address: string, family: number): LookupFunction => (_host, options, callback) => {
  if (options.all) callback(null, [{ address, family }])
  else callback(null, address, family)
}

/** One POST of the body to the URL at `address`: its status, or the error that stopped it. */
const post = (
  url: URL,
  address: { address: string; family: number },
  headers: Record<string, string>,
  body: string,
  timeoutMs: number
) =>
  Effect.async<Outcome>((resume) => {
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: "POST",
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      lookup: pinned(address.address, address.family),
      timeout: timeoutMs
    }, (response) => {
      response.resume()
      response.once("end", () => resume(Effect.succeed({ httpStatus: response.statusCode ?? 0 })))
      response.once("error", () => resume(Effect.succeed({ httpStatus: response.statusCode ?? 0 })))
    })
    request.once("timeout", () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    request.once("error", (e) => resume(Effect.succeed({ error: e.message })))
    request.end(body)
    return Effect.sync(() => request.destroy())
  })

/** One attempt at a delivery: signed, to the address its host resolves to now, if the host is still allowed. */
export const attemptDelivery = (delivery: Delivery, settings: Settings): Effect.Effect<Outcome & { final: boolean }> =>
  Effect.gen(function*() {
    const url = new URL(delivery.url)
    if (!urlAllowed(delivery.url, settings.hosts)) {
      return { error: "the URL's host is no longer among AEON_WEBHOOK_HOSTS", final: true }
    }
    const host = url.hostname.replace(/^\[|\]$/g, "")
    const address = yield* Effect.tryPromise(() => lookup(host)).pipe(
      Effect.mapError((e) => `${host} does not resolve: ${e.cause instanceof Error ? e.cause.message : "unknown"}`)
    )
    const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1_000)
    // an A2A push carries its configuration's token or authentication; a webhook is signed
    const headers: Record<string, string> | undefined = delivery.kind === "a2a"
      ? { "content-type": "application/a2a+json", "user-agent": "Aeon-A2A/1", ...delivery.headers }
      : Option.isNone(settings.secret)
      ? undefined
      : {
        "content-type": "application/json",
        "user-agent": "Aeon-Webhooks/1",
        "webhook-id": delivery.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature(Redacted.value(settings.secret.value), delivery.id, timestamp, delivery.body)
      }
    if (headers === undefined) return { error: "no AEON_WEBHOOK_SECRET to sign with", final: true }
    const outcome = yield* post(url, address, headers, delivery.body, settings.timeoutMs)
    return { ...outcome, final: false }
  }).pipe(Effect.catchAll((error) => Effect.succeed({ error, final: false })))

/** Whether an outcome is a delivery made: the receiver answered 2xx. */
const delivered = (o: Outcome) => o.httpStatus !== undefined && o.httpStatus >= 200 && o.httpStatus < 300

/** The error an attempt records: its own, or the receiver's status. */
const errorOf = (o: Outcome) =>
  o.error ?? (o.httpStatus !== undefined && !delivered(o) ? `the receiver answered ${o.httpStatus}` : undefined)

/** One attempt at a delivery, its outcome recorded: delivered, due again after a doubled delay, or given up. */
const deliver = (outbox: Outbox["Type"], settings: Settings, delivery: Delivery) =>
  Effect.gen(function*() {
    const outcome = yield* attemptDelivery(delivery, settings)
    const made = delivered(outcome)
    const attempt = delivery.attempts + 1
    const retryAt = made || outcome.final || attempt >= settings.attempts
      ? undefined
      : (yield* Clock.currentTimeMillis) + settings.retryMs * 2 ** (attempt - 1)
    if (!made && retryAt === undefined) {
      yield* Effect.logWarning(`webhook ${delivery.id} to ${delivery.url} given up after ${attempt} attempt(s)`)
    }
    yield* outbox.recordAttempt(delivery, { httpStatus: outcome.httpStatus, error: errorOf(outcome) }, {
      delivered: made,
      retryAt
    })
  })

/** The deliveries due now, each attempted and its outcome recorded: how many were attempted. */
export const deliverDue = Effect.gen(function*() {
  const outbox = yield* Outbox
  const settings = yield* WebhookSettings
  // held while attempted: another process takes a delivery only once this one's attempt is surely over
  const due = yield* outbox.takeDue(16, settings.timeoutMs * 2 + 5_000)
  // a run's deliveries one after another, in the order of its events (runs at once)
  const byRun = Object.values(Arr.groupBy(due, (d) => d.runId))
  yield* Effect.forEach(
    byRun,
    (deliveries) => Effect.forEach(deliveries, (delivery) => deliver(outbox, settings, delivery), { discard: true }),
    { concurrency: 4, discard: true }
  )
  return due.length
})

/** How often the outbox is looked at for deliveries due (a query per look: once a second, not more). */
const POLL = Duration.seconds(1)

/**
 * The delivery worker of a server: the outbox looked at every second, for as long as the server lives (a store that
 * fails only delays the deliveries: they stay in the outbox).
 */
export const worker = Layer.scopedDiscard(
  // a server that allows no host delivers nothing: no look at the outbox (its deliveries wait for one that does)
  Effect.flatMap(
    WebhookSettings,
    (s) => (s.hosts.length === 0 ? Effect.void : onOneProcess("webhook deliveries", POLL, deliverDue))
  )
)
