/**
 * The webhooks' outbox: a delivery per event a run's webhook is told, written in the transaction that stores the event
 * (so a run never has an event told without it being stored, nor stored without being told); taken when due by one
 * process at a time; each attempt's outcome kept beside it (`Run.webhookDeliveries`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Schema } from "effect"
import { type A2aTaskState, a2aTaskState } from "../domain/A2aTaskState.js"
import type { RunEvent } from "../domain/RunEvent.js"
import type { WebhookEvent } from "../domain/Webhook.js"
import { awaitingInput } from "../record/Requests.js"
import type { RunRecord } from "../record/RunRecord.js"
import { resultOf } from "../record/RunResult.js"
import { type Statement, statement, timeOf } from "./Statements.js"
import { sqlValues, type StoreError, storeError } from "./StoreValues.js"

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

/** Where a push's body names its task's context (each configuration's, put in as its delivery is written). */
const CONTEXT_MARK = "__A2A_CONTEXT__"

/** A task's status update as an A2A push notification's body (a StreamResponse's JSON). */
export const a2aBody = (runId: string, state: A2aTaskState, at: number, contextJson = CONTEXT_MARK) => {
  const status = `{"state":"${state}","timestamp":"${new Date(at).toISOString()}"}`
  return `{"statusUpdate":{"taskId":${JSON.stringify(runId)},"contextId":"${contextJson}","status":${status}}}`
}

/** The A2A push notifications of a state change: one delivery per configuration of the task (its run). */
const pushesOf = (event: RunEvent, state: A2aTaskState): Statement => {
  const now = Date.now()
  return statement`INSERT INTO webhook_deliveries (id, run_id, seq, event, url, body, kind, headers, next_at,
      created_at)
    SELECT ${`a2a_${event.runId}_${event.seq}_`} || c.id, c.run_id, ${event.seq}, ${`a2a.${state}`}, c.url,
      REPLACE(${a2aBody(event.runId, state, event.at)}, ${CONTEXT_MARK}, c.context_json), 'a2a', c.headers, ${now},
      ${timeOf(now)}
    FROM a2a_push_configs c WHERE c.run_id = ${event.runId}
    ON CONFLICT (id) DO NOTHING`
}

/** RunStarted told: the run runs. */
export const startedDelivery = (event: Extract<RunEvent, { _tag: "RunStarted" }>) => [
  deliveryOf("run.started", event, bodyOf("run.started", event.runId, event.at, { status: "RUNNING" })),
  pushesOf(event, a2aTaskState("RUNNING", false))
]

/** The run asks a person (`asked`: the batch asks, and its record says it waits): what it asks. */
export const awaitingDelivery = (event: RunEvent, record: RunRecord, asked: boolean) => {
  if (!asked || !awaitingInput(record)) return []
  const requests = [...record.requests.values()].filter((r) => r.answer === undefined).map((r) => ({
    requestId: r.request.requestId,
    kind: r.request._tag
  }))
  return [
    deliveryOf(
      "run.awaiting_input",
      event,
      bodyOf("run.awaiting_input", event.runId, event.at, { status: "AWAITING_INPUT", requests })
    ),
    pushesOf(event, a2aTaskState("AWAITING_INPUT", false))
  ]
}

/** RunFinished told: the run's status, answer (its text and its typed data), usage and error code. */
export const finishedDelivery = (event: Extract<RunEvent, { _tag: "RunFinished" }>, record: RunRecord) => {
  const result = resultOf(record)
  const pushes = pushesOf(event, a2aTaskState(event.status, result.finalAnswer !== undefined))
  return [
    pushes,
    deliveryOf(
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
  ]
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
  /** `webhook` (signed as Standard Webhooks) or `a2a` (an A2A push notification, with its configuration's headers). */
  readonly kind: string
  readonly headers: Record<string, string>
}

/** An A2A push configuration of a task (its run), as the protocol has it. */
export interface PushConfig {
  readonly id: string
  readonly url: string
  readonly token?: string | undefined
  readonly authentication?: { readonly scheme: string; readonly credentials: string } | undefined
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
  /**
   * Keeps an A2A push configuration of the task (replacing one of the same id), and tells it the task's state now
   * (`status`, as of its event `seq`): its later state changes are told as they are stored.
   */
  readonly setPush: (
    runId: string,
    contextId: string,
    config: PushConfig,
    now: { readonly state: A2aTaskState; readonly seq: number }
  ) => Effect.Effect<void, StoreError>
  readonly pushConfigs: (runId: string) => Effect.Effect<ReadonlyArray<PushConfig>, StoreError>
  readonly deletePush: (runId: string, id: string) => Effect.Effect<void, StoreError>
}

export class Outbox extends Context.Tag("aeon/Outbox")<Outbox, Service>() {}

const decodeHeaders = Schema.decodeSync(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String })))

/** The headers a push carries: its authentication, else its token (as the A2A SDK's sender does). */
const pushHeaders = (config: PushConfig): Record<string, string> =>
  config.authentication?.scheme && config.authentication.credentials
    ? { authorization: `${config.authentication.scheme} ${config.authentication.credentials}` }
    : config.token
    ? { "X-A2A-Notification-Token": config.token }
    : {}

/** A task's A2A push configurations: kept, listed, deleted; one set is told the task's state at once. */
const pushConfigsWith = (sql: SqlClient.SqlClient): Pick<Service, "setPush" | "pushConfigs" | "deletePush"> => ({
  setPush: (runId, contextId, config, state) => {
    const now = Date.now()
    const { time } = sqlValues(sql)
    const contextJson = JSON.stringify(contextId).slice(1, -1)
    return sql.withTransaction(Effect.zipRight(
      sql`INSERT INTO a2a_push_configs (run_id, id, url, token, auth_scheme, auth_credentials, headers, context_json,
          created_at)
        VALUES (${runId}, ${config.id}, ${config.url}, ${config.token ?? null}, ${
        config.authentication?.scheme ?? null
      },
          ${config.authentication?.credentials ?? null}, ${JSON.stringify(pushHeaders(config))}, ${contextJson},
          ${time(now)})
        ON CONFLICT (run_id, id) DO UPDATE SET url = excluded.url, token = excluded.token,
          auth_scheme = excluded.auth_scheme, auth_credentials = excluded.auth_credentials, headers = excluded.headers`,
      sql`INSERT INTO webhook_deliveries (id, run_id, seq, event, url, body, kind, headers, next_at, created_at)
        VALUES (${`a2a_${runId}_${state.seq}_${config.id}`}, ${runId}, ${state.seq}, ${`a2a.${state.state}`},
          ${config.url}, ${a2aBody(runId, state.state, now, contextJson)}, 'a2a',
          ${JSON.stringify(pushHeaders(config))}, ${now}, ${time(now)})
        ON CONFLICT (id) DO NOTHING`
    )).pipe(Effect.asVoid, Effect.mapError(storeError(`keeping a push configuration of run ${runId}`)))
  },
  pushConfigs: (runId) =>
    sql<{ id: string; url: string; token: string | null; auth_scheme: string | null; auth_credentials: string | null }>`
      SELECT id, url, token, auth_scheme, auth_credentials FROM a2a_push_configs WHERE run_id = ${runId}
      ORDER BY created_at, id`.pipe(
      Effect.map((rows) =>
        rows.map((r) => ({
          id: r.id,
          url: r.url,
          token: r.token ?? undefined,
          authentication: r.auth_scheme && r.auth_credentials
            ? { scheme: r.auth_scheme, credentials: r.auth_credentials }
            : undefined
        }))
      ),
      Effect.mapError(storeError(`reading the push configurations of run ${runId}`))
    ),
  deletePush: (runId, id) =>
    sql`DELETE FROM a2a_push_configs WHERE run_id = ${runId} AND id = ${id}`.pipe(
      Effect.asVoid,
      Effect.mapError(storeError(`deleting a push configuration of run ${runId}`))
    )
})

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
      return sql<
        Omit<Delivery, "headers"> & { run_id: string; headers: string | null }
      >`UPDATE webhook_deliveries SET lease_until = ${now + leaseMs}
        WHERE id IN (${due}) RETURNING id, run_id, seq, event, url, body, attempts, kind, headers`.pipe(
        Effect.map((rows) =>
          rows.map((r) => ({
            ...r,
            runId: r.run_id,
            seq: Number(r.seq),
            attempts: Number(r.attempts),
            headers: r.headers ? decodeHeaders(r.headers) : {}
          }))
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
    ...pushConfigsWith(sql),
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
