/**
 * Schedules run (#73.3): a task started on a cron. A schedule's cron is 5 fields, or 6 with seconds first, in an IANA
 * time zone (UTC unless said); a bad one is INVALID_SCHEDULE. The server looks at the due schedules every second (a
 * background job, support/Background): each due schedule's tick is taken by one process (store/Schedules.takeTick, a
 * compare-and-set on its next tick) and starts one run, tagged `schedule:<id>`, as the schedule's owner. Ticks missed
 * while no server ran are one run at the next look.
 */
import { Cron, Duration, Effect, Either, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { checkedInput } from "../run/Registration.js"
import { type Schedule, Schedules, scheduleTag } from "../store/Schedules.js"
import { onOneProcess } from "../support/Background.js"
import { ToolRegistry } from "../tools/ToolRegistry.js"
import { RunManager } from "./RunManager.js"

export class InvalidScheduleError
  extends Schema.TaggedError<InvalidScheduleError>()("INVALID_SCHEDULE", { message: Schema.String })
{}

/** A schedule's cron in its time zone, checked. */
export const cronOf = (cron: string, timezone?: string | null) =>
  Either.mapLeft(
    Cron.parse(cron, timezone ?? "UTC"),
    (e) =>
      new InvalidScheduleError({
        message: e.message.includes("time zone")
          ? `the time zone ${timezone} is not an IANA time zone (Europe/Paris, UTC, …)`
          : `the cron ${
            JSON.stringify(cron)
          } is not 5 fields (minute hour day month weekday), or 6 with seconds first: ${e.message}`
      })
  )

/** The first tick after `after` (ms). */
export const nextTickAfter = (cron: Cron.Cron, after: number) => Cron.next(cron, new Date(after)).getTime()

/** The run a tick starts: the schedule's input, its task and agent, as its owner, tagged with the schedule. */
const runInputOf = (s: Pick<Schedule, "id" | "input" | "task" | "agent" | "owner">) => {
  const tags = Array.isArray(s.input.tags) ? s.input.tags.filter((t): t is string => typeof t === "string") : []
  return {
    ...s.input,
    task: s.task,
    ...(s.agent ? { agent: s.agent } : {}),
    ...(s.owner ? { userId: s.owner } : {}),
    tags: [...tags, scheduleTag(s.id)]
  }
}

/** One schedule due now: its tick taken (here, or by another process) and, here, its run started. */
const fire = (schedules: Schedules["Type"], manager: RunManager["Type"], s: Schedule, now: number) =>
  Effect.gen(function*() {
    const cron = cronOf(s.cron, s.timezone)
    if (Either.isLeft(cron)) return yield* Effect.logWarning(`schedule ${s.id}: ${cron.left.message}`)
    // the latest tick that has come (ticks missed meanwhile are this one run), and the next after now
    const tick = Math.max(s.nextTickAt, Cron.prev(cron.right, new Date(now + 1)).getTime())
    const taken = yield* schedules.takeTick(s.id, s.nextTickAt, tick, nextTickAfter(cron.right, now))
    if (!taken) return
    const started = yield* Effect.either(manager.start(runInputOf(s)))
    if (Either.isLeft(started)) {
      yield* Effect.logWarning(`schedule ${s.id}: its run could not start: ${started.left.message}`)
    }
  })

/** One look at the schedules due now. */
const look = Effect.gen(function*() {
  const schedules = yield* Schedules
  const manager = yield* RunManager
  const now = Date.now()
  yield* Effect.forEach(yield* schedules.due(now), (s) => fire(schedules, manager, s, now), { discard: true })
})

/** The schedules of the store, looked at every second while the server lives (none without a store). */
export const scheduler = Effect.flatMap(Effect.serviceOption(Schedules), (schedules) =>
  Option.isNone(schedules)
    ? Effect.void
    : onOneProcess("schedules", Duration.seconds(1), Effect.provideService(look, Schedules, schedules.value)))

/** A new schedule's id. */
export const newScheduleId = () => randomUUID()

/** What a caller gives to make a schedule. */
export interface ScheduleRequest {
  readonly cron: string
  readonly timezone?: string | undefined
  readonly task: string
  readonly agent?: string | undefined
  /** More of the run's input (RunTaskInput's other fields). */
  readonly input?: Record<string, unknown> | undefined
  readonly enabled?: boolean | undefined
}

/** The schedule asked for, checked (INVALID_SCHEDULE naming what is wrong), made for `owner` ('' for none). */
export const createSchedule = (owner: string, request: ScheduleRequest) =>
  Effect.gen(function*() {
    const cron = yield* cronOf(request.cron, request.timezone)
    if (request.task.trim() === "") {
      return yield* new InvalidScheduleError({ message: "a schedule's task must not be empty" })
    }
    const reserved = ["task", "agent", "userId", "runId", "threadId"].filter((k) => request.input?.[k] !== undefined)
    if (reserved.length > 0) {
      return yield* new InvalidScheduleError({
        message: `input may not set ${reserved.join(", ")}: the schedule gives the task and agent, each run its own id`
      })
    }
    const made = {
      id: newScheduleId(),
      cron: request.cron.trim(),
      timezone: request.timezone,
      task: request.task,
      agent: request.agent,
      input: request.input ?? {},
      enabled: request.enabled ?? true,
      nextTickAt: nextTickAfter(cron, Date.now())
    }
    // a tick's run checked now, as it will be started (its input, agent, webhook): refused as that run would be
    const tools = yield* Effect.serviceOption(ToolRegistry)
    if (Option.isSome(tools)) {
      const input = runInputOf({ ...made, agent: made.agent ?? null, owner })
      yield* Effect.provideService(checkedInput(input), ToolRegistry, tools.value)
    }
    return yield* (yield* Schedules).create(owner, made)
  })

/** Pauses or resumes one (resumed: its next tick counted from now, no tick missed while paused is run). */
export const setScheduleEnabled = (owner: string, id: string, enabled: boolean) =>
  Effect.gen(function*() {
    const schedules = yield* Schedules
    const found = yield* schedules.get(owner, id)
    if (Option.isNone(found)) return Option.none<Schedule>()
    const cron = Either.getOrUndefined(cronOf(found.value.cron, found.value.timezone))
    const next = cron ? nextTickAfter(cron, Date.now()) : found.value.nextTickAt
    return yield* schedules.setEnabled(owner, id, enabled, next)
  })

/** An owner's schedules, oldest first. */
export const listSchedules = (owner: string) => Effect.flatMap(Schedules, (s) => s.list(owner))

/** Deletes one of an owner's schedules: whether there was one. */
export const deleteSchedule = (owner: string, id: string) => Effect.flatMap(Schedules, (s) => s.remove(owner, id))
