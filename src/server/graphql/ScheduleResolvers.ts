import { Effect, Option } from "effect"
import { RunManager } from "../../runs/RunManager.js"
import type { RunModel } from "../../runs/RunModel.js"
import { createSchedule, setScheduleEnabled } from "../../runs/Scheduler.js"
import { type Schedule, scheduleOfTags, Schedules } from "../../store/Schedules.js"
import type * as G from "./generated/graphql.js"
import type { GraphQLContext } from "./GraphQLContext.js"

type Run = <A, E>(ctx: GraphQLContext, effect: Effect.Effect<A, E, any>) => Promise<A>

/** A schedule's owner: the caller's user ('' for none, as agents and threads have it). */
const ownerOf = (ctx: GraphQLContext) => ctx.userId ?? ""

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** A schedule as GraphQL shows it (its runs read when asked for). */
const scheduleView = (s: Schedule) => ({
  id: s.id,
  cron: s.cron,
  timezone: s.timezone,
  task: s.task,
  agent: s.agent,
  input: Object.keys(s.input).length > 0 ? s.input : null,
  enabled: s.enabled,
  createdAt: s.createdAt.toISOString(),
  lastRunAt: iso(s.lastTickAt),
  nextRunAt: s.enabled ? iso(s.nextTickAt) : null,
  owner: s.owner
})
export type ScheduleView = ReturnType<typeof scheduleView>

/** A JSON input that is an object (anything else: none). */
const recordOf = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? { ...value } : undefined

const present = <A>(value: A | null | undefined) => (value === null ? undefined : value)

export const scheduleQueries = (run: Run): Pick<G.QueryResolvers, "schedules" | "schedule"> => ({
  schedules: (_, __, ctx) =>
    run(ctx, Effect.map(Effect.flatMap(Schedules, (s) => s.list(ownerOf(ctx))), (all) => all.map(scheduleView))),
  schedule: (_, { id }, ctx) =>
    run(
      ctx,
      Effect.map(Effect.flatMap(Schedules, (s) => s.get(ownerOf(ctx), id)), (s) =>
        Option.getOrNull(Option.map(s, scheduleView)))
    )
})

export const scheduleMutations = (
  run: Run
): Pick<G.MutationResolvers, "createSchedule" | "pauseSchedule" | "resumeSchedule" | "deleteSchedule"> => ({
  createSchedule: (_, { input }, ctx) =>
    run(
      ctx,
      Effect.map(
        createSchedule(ownerOf(ctx), {
          cron: input.cron,
          timezone: present(input.timezone),
          task: input.task,
          agent: present(input.agent),
          input: recordOf(input.input),
          enabled: present(input.enabled)
        }),
        scheduleView
      )
    ),
  pauseSchedule: (_, { id }, ctx) =>
    run(
      ctx,
      Effect.map(setScheduleEnabled(ownerOf(ctx), id, false), (s) => Option.getOrNull(Option.map(s, scheduleView)))
    ),
  resumeSchedule: (_, { id }, ctx) =>
    run(
      ctx,
      Effect.map(setScheduleEnabled(ownerOf(ctx), id, true), (s) => Option.getOrNull(Option.map(s, scheduleView)))
    ),
  deleteSchedule: (_, { id }, ctx) => run(ctx, Effect.flatMap(Schedules, (s) => s.remove(ownerOf(ctx), id)))
})

/** A schedule's runs (its owner's, newest first), and a run's schedule from its tags. */
export const scheduleFields = (run: Run) => ({
  Schedule: {
    runs: (s: ScheduleView, _: unknown, ctx: GraphQLContext) =>
      run(
        ctx,
        Effect.map(
          Effect.flatMap(RunManager, (m) =>
            m.list({ scheduleId: s.id, userId: s.owner === "" ? undefined : s.owner, first: 100 })),
          (page) =>
            page.runs.map((r) => ({ id: r.id, status: r.status, createdAt: r.createdAt.toISOString() }))
        )
      )
  },
  scheduleId: (r: RunModel) => scheduleOfTags(r.record.started?.tags) ?? null
})
