/**
 * Schedules (#73.3): a task (with an agent and more of a run's input) started on a cron, per owner (the user; '' for
 * none). Each tick starts one run: the process that moves the schedule's next tick on (a compare-and-set on it) is the
 * one that starts it, so servers sharing the store start one run per tick between them. Ticks missed while no server
 * ran are one run at the next look, not one per tick.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { sqlValues, type StoreError, storeError } from "./StoreValues.js"

export interface Schedule {
  readonly id: string
  readonly owner: string
  readonly cron: string
  readonly timezone: string | null
  readonly task: string
  readonly agent: string | null
  /** More of the run's input (RunTaskInput's other fields). */
  readonly input: Record<string, unknown>
  readonly enabled: boolean
  readonly createdAt: Date
  /** The last tick a run was started for (ms). */
  readonly lastTickAt: number | null
  /** The next tick (ms). */
  readonly nextTickAt: number
}

export interface NewSchedule {
  readonly id: string
  readonly cron: string
  readonly timezone?: string | undefined
  readonly task: string
  readonly agent?: string | undefined
  readonly input: Record<string, unknown>
  readonly enabled: boolean
  readonly nextTickAt: number
}

export interface Service {
  readonly create: (owner: string, schedule: NewSchedule) => Effect.Effect<Schedule, StoreError>
  readonly list: (owner: string) => Effect.Effect<ReadonlyArray<Schedule>, StoreError>
  readonly get: (owner: string, id: string) => Effect.Effect<Option.Option<Schedule>, StoreError>
  /** Pauses or resumes it (resumed: its next tick from now): the schedule after, none when it is not the owner's. */
  readonly setEnabled: (
    owner: string,
    id: string,
    enabled: boolean,
    nextTickAt: number
  ) => Effect.Effect<Option.Option<Schedule>, StoreError>
  readonly remove: (owner: string, id: string) => Effect.Effect<boolean, StoreError>
  /** The enabled schedules whose next tick has come (every owner's). */
  readonly due: (now: number) => Effect.Effect<ReadonlyArray<Schedule>, StoreError>
  /**
   * Takes the tick `tick` of a schedule whose next tick was `seen`, moving it to `next`: true for the one process that
   * does (of those looking at once), false for the others.
   */
  readonly takeTick: (id: string, seen: number, tick: number, next: number) => Effect.Effect<boolean, StoreError>
}

/** The tag a run a schedule's tick started carries, and the schedule a run's tags name (one rule for both). */
const SCHEDULE_TAG = "schedule:"
export const scheduleTag = (id: string) => `${SCHEDULE_TAG}${id}`
export const scheduleOfTags = (tags: ReadonlyArray<string> | undefined) =>
  tags?.find((t) => t.startsWith(SCHEDULE_TAG))?.slice(SCHEDULE_TAG.length)

export class Schedules extends Context.Tag("aeon/Schedules")<Schedules, Service>() {}

const InputJson = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const decodeInput = Schema.decodeUnknownSync(InputJson)

/** A schedule as its row holds it: the same text columns; its input as JSON, its times and flag as stored. */
interface Row extends Pick<Schedule, "id" | "owner" | "cron" | "timezone" | "task" | "agent"> {
  readonly input: string
  readonly enabled: number | boolean
  readonly created_at: unknown
  readonly last_tick: number | string | null
  readonly next_tick: number | string
}

const toSchedule = (r: Row): Schedule => ({
  id: r.id,
  owner: r.owner,
  cron: r.cron,
  timezone: r.timezone,
  task: r.task,
  agent: r.agent,
  input: decodeInput(r.input),
  enabled: r.enabled === true || Number(r.enabled) === 1,
  createdAt: r.created_at instanceof Date ? r.created_at : new Date(String(r.created_at)),
  lastTickAt: r.last_tick === null ? null : Number(r.last_tick),
  nextTickAt: Number(r.next_tick)
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { time } = sqlValues(sql)
  const failing = (what: string) => Effect.mapError(storeError(what))
  const get: Service["get"] = (owner, id) =>
    sql<Row>`SELECT * FROM schedules WHERE owner = ${owner} AND id = ${id}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toSchedule)),
      failing(`reading schedule ${id}`)
    )
  return Schedules.of({
    create: (owner, s) =>
      sql`INSERT INTO schedules (id, owner, cron, timezone, task, agent, input, enabled, created_at, next_tick)
        VALUES (${s.id}, ${owner}, ${s.cron}, ${s.timezone ?? null}, ${s.task}, ${s.agent ?? null},
          ${JSON.stringify(s.input)}, ${s.enabled ? 1 : 0}, ${time(Date.now())}, ${s.nextTickAt})`.pipe(
        failing(`creating schedule ${s.id}`),
        Effect.zipRight(get(owner, s.id)),
        Effect.map(Option.getOrThrow)
      ),
    list: (owner) =>
      sql<Row>`SELECT * FROM schedules WHERE owner = ${owner} ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(toSchedule)),
        failing("listing schedules")
      ),
    get,
    setEnabled: (owner, id, enabled, nextTickAt) =>
      sql`UPDATE schedules SET enabled = ${enabled ? 1 : 0}, next_tick = ${nextTickAt}
        WHERE owner = ${owner} AND id = ${id}`.pipe(
        failing(`${enabled ? "resuming" : "pausing"} schedule ${id}`),
        Effect.zipRight(get(owner, id))
      ),
    remove: (owner, id) =>
      sql<{ id: string }>`DELETE FROM schedules WHERE owner = ${owner} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failing(`deleting schedule ${id}`)
      ),
    due: (now) =>
      sql<Row>`SELECT * FROM schedules WHERE enabled = 1 AND next_tick <= ${now} ORDER BY next_tick, id LIMIT 100`.pipe(
        Effect.map((rows) => rows.map(toSchedule)),
        failing("reading the schedules due")
      ),
    takeTick: (id, seen, tick, next) =>
      sql<{ id: string }>`UPDATE schedules SET last_tick = ${tick}, next_tick = ${next}
        WHERE id = ${id} AND next_tick = ${seen} AND enabled = 1 RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failing(`taking a tick of schedule ${id}`)
      )
  })
})

/** The schedules over the store's SQL client (both dialects). */
export const layer = Layer.effect(Schedules, make)
