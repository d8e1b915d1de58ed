import type { Dialect } from "./Dialects.js"

/*
 * The tables of runs that report and start themselves (migration 0016): webhooks and their outbox, A2A push
 * configurations, schedules.
 */

/**
 * Webhooks (store/Outbox): a run's webhook (`webhook_url`, `webhook_events` as `,run.finished,`), and the outbox — one
 * delivery per event told, written in the transaction that stores the event (its id the `webhook-id` of every attempt),
 * taken by one process at a time (`lease_until`) — with each attempt's outcome. A2A push configurations (a task's
 * `pushNotificationConfig`s): their deliveries (`kind` a2a, with their `headers`) go through the same outbox.
 * Schedules (store/Schedules): a task on a cron, per owner; a run a tick started names it (`runs.schedule_id`).
 */
export const webhooksAndSchedules = (d: Dialect) => [
  "ALTER TABLE runs ADD COLUMN webhook_url text",
  "ALTER TABLE runs ADD COLUMN schedule_id text",
  "CREATE INDEX IF NOT EXISTS runs_schedule ON runs (schedule_id)",
  `CREATE TABLE IF NOT EXISTS schedules (
    id text PRIMARY KEY,
    owner text NOT NULL,
    cron text NOT NULL,
    timezone text,
    task text NOT NULL,
    agent text,
    input text NOT NULL,
    enabled integer NOT NULL,
    created_at ${d.time} NOT NULL,
    last_tick bigint,
    next_tick bigint NOT NULL
  )`,
  "ALTER TABLE runs ADD COLUMN webhook_events text",
  `CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id text PRIMARY KEY,
    run_id text NOT NULL,
    seq integer NOT NULL,
    event text NOT NULL,
    url text NOT NULL,
    body text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_at bigint NOT NULL,
    lease_until bigint,
    delivered_at bigint,
    gave_up_at bigint,
    kind text NOT NULL DEFAULT 'webhook',
    headers text,
    created_at ${d.time} NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS a2a_push_configs (
    run_id text NOT NULL,
    id text NOT NULL,
    url text NOT NULL,
    token text,
    auth_scheme text,
    auth_credentials text,
    headers text NOT NULL,
    context_json text NOT NULL,
    created_at ${d.time} NOT NULL,
    PRIMARY KEY (run_id, id)
  )`,
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_at)
    WHERE delivered_at IS NULL AND gave_up_at IS NULL`,
  "CREATE INDEX IF NOT EXISTS webhook_deliveries_run ON webhook_deliveries (run_id)",
  `CREATE TABLE IF NOT EXISTS webhook_attempts (
    delivery_id text NOT NULL,
    attempt integer NOT NULL,
    http_status integer,
    error text,
    at bigint NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  )`
]
