/**
 * The webhooks' outbox: a delivery per event a run's webhook is told, written in the transaction that stores the event
 * (so a run never has an event told without it being stored, nor stored without being told); taken when due by one
 * process at a time; each attempt's outcome kept beside it (`Run.webhookDeliveries`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import type { WebhookEvent } from "../domain/Webhook.js"
import { awaitingInput } from "../record/Requests.js"
import type { RunRecord } from "../record/RunRecord.js"
import { resultOf } from "../record/RunResult.js"
import { type Statement, statement, timeOf } from "./Statements.js"
import { type StoreError, storeError } from "./StoreValues.js"

/** A delivery's body as Standard Webhooks has it: the event's type, when, and the run's part of it. */
const bodyOf = (type: WebhookEvent, runId: string, at: number, data: Record<string, unknown>) =>
  JSON.stringify({ type, timestamp: new Date(at).toISOString(), data: { runId, ...data } })

/** The delivery of `type` for the run's webhook, if it has one that asks for it: one per event (its id `msg_…`). */
const deliveryOf = (type: WebhookEvent, event: RunEvent, body: string): Statement => {
  const now = Date.now()
  return statement`INSERT INTO webhook_deliveries (id, run_id, seq, event, url, body, next_at, created_at)
    SELECT ${`msg_${event.runId}_${event.seq}`}, id, ${event.seq}, ${type}, webhook_url, ${body}, ${now}, ${timeOf(now)}
    FROM runs WHERE id = ${event.runId} AND webhook_url IS NOT NULL AND webhook_events LIKE ${`%,${type},%`}
    ON CONFLICT (id) DO NOTHING`
}

/** RunStarted told: the run runs. */
export const startedDelivery = (event: Extract<RunEvent, { _tag: "RunStarted" }>) =>
  deliveryOf("run.started", event, bodyOf("run.started", event.runId, event.at, { status: "RUNNING" }))

/** The run asks a person (`asked`: the batch asks, and its record says it waits): what it asks. */
export const awaitingDelivery = (event: RunEvent, record: RunRecord, asked: boolean) => {
  if (!asked || !awaitingInput(record)) return []
  const requests = [...record.requests.values()].filter((r) => r.answer === undefined).map((r) => ({
    requestId: r.request.requestId,
    kind: r.request._tag
  }))
  return [deliveryOf(
    "run.awaiting_input",
    event,
    bodyOf("run.awaiting_input", event.runId, event.at, { status: "AWAITING_INPUT", requests })
  )]
}

/** RunFinished told: the run's status, answer (its text and its typed data), usage and error code. */
export const finishedDelivery = (event: Extract<RunEvent, { _tag: "RunFinished" }>, record: RunRecord) => {
  const result = resultOf(record)
  return deliveryOf(
    "run.finished",
    event,
    bodyOf("run.finished", event.runId, event.at, {
      status: event.status,
      finalAnswer: result.finalAnswer
        ? { answerText: result.finalAnswer.answerText, data: result.finalAnswer.data ?? null }
        : null,
      usage: event.usage,
      errorCode: event.errorCode ?? null
    })
  )
}

/** A delivery taken to be made now. */
export interface Delivery {
  readonly id: string
  readonly runId: string
  /** The seq of the event it tells (a run's deliveries are first attempted in the order of its events). */
  readonly seq: number
  readonly event: string
  readonly url: string
  readonly body: string
  readonly attempts: number
}

/** One attempt as the run shows it. */
export interface Attempt {
  readonly event: string
  readonly attempt: number
  readonly httpStatus: number | null
  readonly error: string | null
  readonly at: number
  readonly delivered: boolean
}

export interface Service {
  /** Takes up to `limit` deliveries due now, for `leaseMs` (another process takes them after, if this one died). */
  readonly takeDue: (limit: number, leaseMs: number) => Effect.Effect<ReadonlyArray<Delivery>, StoreError>
  /**
   * Records an attempt: delivered, or due again at `retryAt` (undefined: given up). The attempt is numbered after the
   * delivery's.
   */
  readonly recordAttempt: (
    delivery: Delivery,
    outcome: { readonly httpStatus?: number | undefined; readonly error?: string | undefined },
    next: { readonly delivered: boolean; readonly retryAt?: number | undefined }
  ) => Effect.Effect<void, StoreError>
  /** A run's attempts, in order. */
  readonly attempts: (runId: string) => Effect.Effect<ReadonlyArray<Attempt>, StoreError>
}

export class Outbox extends Context.Tag("aeon/Outbox")<Outbox, Service>() {}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const shared = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const failing = (what: string) => Effect.mapError(storeError(what))
  return Outbox.of({
    takeDue: (limit, leaseMs) => {
      const now = Date.now()
      // of processes sharing PostgreSQL looking at once, each delivery goes to one (the others skip its locked row)
      const due = shared
        ? sql`SELECT id FROM webhook_deliveries WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_at <= ${now}
            AND (lease_until IS NULL OR lease_until <= ${now}) ORDER BY next_at, run_id, seq LIMIT ${limit} FOR UPDATE SKIP LOCKED`
        : sql`SELECT id FROM webhook_deliveries WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_at <= ${now}
            AND (lease_until IS NULL OR lease_until <= ${now}) ORDER BY next_at, run_id, seq LIMIT ${limit}`
      return sql<Delivery & { run_id: string }>`UPDATE webhook_deliveries SET lease_until = ${now + leaseMs}
        WHERE id IN (${due}) RETURNING id, run_id, seq, event, url, body, attempts`.pipe(
        Effect.map((rows) =>
          rows.map((r) => ({ ...r, runId: r.run_id, seq: Number(r.seq), attempts: Number(r.attempts) }))
            .sort((x, y) => x.runId.localeCompare(y.runId) || x.seq - y.seq)
        ),
        failing("taking the webhook deliveries due")
      )
    },
    recordAttempt: (delivery, outcome, next) => {
      const now = Date.now()
      const attempt = delivery.attempts + 1
      return sql.withTransaction(Effect.zipRight(
        sql`INSERT INTO webhook_attempts (delivery_id, attempt, http_status, error, at)
          VALUES (${delivery.id}, ${attempt}, ${outcome.httpStatus ?? null}, ${outcome.error ?? null}, ${now})
          ON CONFLICT (delivery_id, attempt) DO NOTHING`,
        sql`UPDATE webhook_deliveries SET attempts = ${attempt}, lease_until = NULL,
          delivered_at = ${next.delivered ? now : null},
          gave_up_at = ${!next.delivered && next.retryAt === undefined ? now : null},
          next_at = ${next.retryAt ?? now} WHERE id = ${delivery.id}`
      )).pipe(Effect.asVoid, failing(`recording webhook delivery ${delivery.id}`))
    },
    attempts: (runId) =>
      sql<{ event: string; attempt: number; http_status: number | null; error: string | null; at: number; ok: number }>`
        SELECT d.event, a.attempt, a.http_status, a.error, a.at,
          CASE WHEN d.delivered_at IS NOT NULL AND a.attempt = d.attempts THEN 1 ELSE 0 END AS ok
        FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE d.run_id = ${runId} ORDER BY a.at, d.id, a.attempt`.pipe(
        Effect.map((rows) =>
          rows.map((r) => ({
            event: r.event,
            attempt: Number(r.attempt),
            httpStatus: r.http_status === null ? null : Number(r.http_status),
            error: r.error,
            at: Number(r.at),
            delivered: Number(r.ok) === 1
          }))
        ),
        failing(`reading the webhook deliveries of run ${runId}`)
      )
  })
})

/** The outbox over the store's SQL client. */
export const layer = Layer.effect(Outbox, make)
