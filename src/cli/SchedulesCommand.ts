import { Args, Command, Options } from "@effect/cli"
import { Effect, Option, Schema } from "effect"
import { createSchedule, deleteSchedule, listSchedules } from "../runs/Scheduler.js"
import * as Database from "../store/Database.js"
import { CliError } from "./CliError.js"
import { handle, json, noted, noteSubcommands } from "./CommandParts.js"
import { operation, serverHoldingDataDir } from "./ViaServer.js"

/**
 * `aeon schedules`, `aeon schedules add --cron "…" [--timezone TZ] [--agent A] "task"`, `aeon schedules rm ID`: the
 * schedules of the server holding the data directory, else of the store (they start runs while a server runs on it).
 */
const ScheduleShown = Schema.Struct({
  id: Schema.String,
  cron: Schema.String,
  timezone: Schema.NullOr(Schema.String),
  task: Schema.String,
  agent: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  nextRunAt: Schema.NullOr(Schema.String)
})
type ScheduleShown = typeof ScheduleShown.Type
const FIELDS = "id cron timezone task agent enabled nextRunAt"

const shown = (s: Effect.Effect.Success<ReturnType<typeof listSchedules>>[number]): ScheduleShown => ({
  id: s.id,
  cron: s.cron,
  timezone: s.timezone,
  task: s.task,
  agent: s.agent,
  enabled: s.enabled,
  nextRunAt: s.enabled ? new Date(s.nextTickAt).toISOString() : null
})

const local = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, Database.layerConfig)

const print = (o: { json: boolean }, schedules: ReadonlyArray<ScheduleShown>) => {
  if (o.json) return process.stdout.write(`${JSON.stringify(schedules, null, 2)}\n`)
  if (schedules.length === 0) return process.stdout.write("no schedules (aeon schedules add --cron \"…\" \"task\")\n")
  for (const s of schedules) {
    process.stdout.write(
      `${s.id}  ${s.cron}${s.timezone ? ` (${s.timezone})` : ""}  ${s.enabled ? `next ${s.nextRunAt}` : "paused"}  ${
        s.agent ? `[${s.agent}] ` : ""
      }${s.task}\n`
    )
  }
}

const list = Command.make("schedules", noted("schedules", { json }), (o) =>
  handle(() =>
    Effect.gen(function*() {
      const server = yield* serverHoldingDataDir
      const schedules = server !== undefined
        ? (yield* operation(
          server,
          `{ schedules { ${FIELDS} } }`,
          {},
          Schema.Struct({
            schedules: Schema.Array(ScheduleShown)
          })
        )).schedules
        : (yield* local(listSchedules(""))).map(shown)
      print(o, schedules)
    })
  ))

const addOptions = {
  cron: Options.text("cron").pipe(
    Options.withDescription("minute hour day month weekday, or 6 fields with seconds first")
  ),
  timezone: Options.text("timezone").pipe(Options.withDescription("an IANA time zone (default UTC)"), Options.optional),
  agent: Options.text("agent").pipe(Options.withDescription("the agent each run is a run of"), Options.optional),
  json,
  task: Args.text({ name: "task" }).pipe(Args.withDescription("what each run does"))
}

const add = Command.make("add", noted("schedules", addOptions), (o) =>
  handle(() =>
    Effect.gen(function*() {
      const request = {
        cron: o.cron,
        timezone: Option.getOrUndefined(o.timezone),
        task: o.task,
        agent: Option.getOrUndefined(o.agent)
      }
      const server = yield* serverHoldingDataDir
      const made = server !== undefined
        ? (yield* operation(
          server,
          `mutation($input: ScheduleInput!) { createSchedule(input: $input) { ${FIELDS} } }`,
          { input: request },
          Schema.Struct({ createSchedule: ScheduleShown })
        )).createSchedule
        : shown(
          yield* local(
            createSchedule("", request).pipe(
              Effect.mapError((
                e
              ) => (e._tag === "INVALID_SCHEDULE" ? new CliError(`INVALID_SCHEDULE: ${e.message}`) : e))
            )
          )
        )
      print(o, [made])
    })
  )).pipe(Command.withDescription("starts a task on a cron (one run per tick while a server runs)"))

const rm = Command.make(
  "rm",
  { id: Args.text({ name: "id" }).pipe(Args.withDescription("the schedule's id")) },
  (o) =>
    handle(() =>
      Effect.gen(function*() {
        const server = yield* serverHoldingDataDir
        const removed = server !== undefined
          ? (yield* operation(
            server,
            `mutation($id: ID!) { deleteSchedule(id: $id) }`,
            { id: o.id },
            Schema.Struct({
              deleteSchedule: Schema.Boolean
            })
          )).deleteSchedule
          : yield* local(deleteSchedule("", o.id))
        if (!removed) return yield* Effect.fail(new CliError(`no schedule ${o.id} (aeon schedules lists them)`))
        process.stdout.write(`schedule ${o.id} deleted\n`)
      })
    )
).pipe(Command.withDescription("deletes a schedule (its runs are kept)"))

noteSubcommands("schedules", ["add", "rm"])

export const schedulesCommand = list.pipe(
  Command.withDescription("tasks started on a cron: aeon schedules add --cron \"0 9 * * 1-5\" \"task\"; rm ID"),
  Command.withSubcommands([add, rm])
)
