import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Schedules from "../../src/store/Schedules.js"
import { backend, freshDatabase, storeLayer } from "../support/database.js"
import { gql, startServer, type TestServer, waitFor } from "../support/server.js"

/**
 * Schedules (#73.3) through GraphQL: a task on a cron of 6 fields (every 2 s) starts one run per tick, each naming its
 * schedule; paused, it starts none; deleted, it is gone; a bad cron or time zone is INVALID_SCHEDULE. On PostgreSQL,
 * two servers looking at the same schedule start one run per tick between them.
 */
let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.stop())

const SCHEDULE = `id cron enabled nextRunAt lastRunAt runs { id status createdAt }`
const create = (url: string, cron: string, timezone?: string) =>
  gql(
    url,
    `mutation($input: ScheduleInput!) { createSchedule(input: $input) { ${SCHEDULE} } }`,
    { input: { cron, timezone, task: "Compute 1 + 1", input: { mode: "SIMPLE", memory: false } } }
  )
const read = async (url: string, id: string) =>
  (await gql(url, `query($id: ID!) { schedule(id: $id) { ${SCHEDULE} } }`, { id })).body.data?.schedule

describe("schedules", () => {
  it("every 2 s: a run per tick, each naming its schedule; paused none; deleted gone", async () => {
    const made = await create(server.url, "*/2 * * * * *")
    expect(made.body.errors).toBeUndefined()
    const id = made.body.data!.createSchedule.id as string
    expect(made.body.data!.createSchedule).toMatchObject({ enabled: true, lastRunAt: null })
    const ran = await waitFor(async () => {
      const s = await read(server.url, id)
      return s.runs.length >= 2 ? s : undefined
    }, 20_000)
    const [second, first] = ran.runs
    expect(Date.parse(second.createdAt) - Date.parse(first.createdAt)).toBeGreaterThanOrEqual(1_000)
    const run = (await gql(server.url, `query($id: ID!) { run(id: $id) { scheduleId tags } }`, { id: first.id }))
      .body.data!.run
    await waitFor(async () => {
      const r =
        (await gql(server.url, `query($id: ID!) { run(id: $id) { scheduleId } }`, { id: first.id })).body.data!.run
      return r.scheduleId === id ? true : undefined
    })
    expect(run.tags).toContain(`schedule:${id}`)

    const paused = await gql(server.url, `mutation($id: ID!) { pauseSchedule(id: $id) { enabled nextRunAt } }`, { id })
    expect(paused.body.data!.pauseSchedule).toEqual({ enabled: false, nextRunAt: null })
    const count = (await read(server.url, id)).runs.length
    // two ticks' time: none starts while paused
    await new Promise((r) => setTimeout(r, 4_500))
    expect((await read(server.url, id)).runs.length).toBe(count)
    const resumed = await gql(server.url, `mutation($id: ID!) { resumeSchedule(id: $id) { enabled } }`, { id })
    expect(resumed.body.data!.resumeSchedule.enabled).toBe(true)
    await waitFor(async () => ((await read(server.url, id)).runs.length > count ? true : undefined), 20_000)

    expect((await gql(server.url, `mutation($id: ID!) { deleteSchedule(id: $id) }`, { id })).body.data!.deleteSchedule)
      .toBe(true)
    expect(await read(server.url, id)).toBeNull()
    expect((await gql(server.url, `{ schedules { id } }`)).body.data!.schedules).toEqual([])
  }, 60_000)

  it("a bad cron or time zone is INVALID_SCHEDULE, nothing made", async () => {
    for (const [cron, tz] of [["* * *", undefined], ["61 * * * *", undefined], ["0 9 * * *", "Mars/Olympus"]]) {
      const r = await create(server.url, cron!, tz)
      expect(r.body.errors?.[0]?.extensions?.code, `${cron} ${tz}`).toBe("INVALID_SCHEDULE")
    }
    expect((await gql(server.url, `{ schedules { id } }`)).body.data!.schedules).toEqual([])
  })

  it("a run its ticks could not start is refused when the schedule is made, coded as a run would be, nothing made", async () => {
    const made = (input: Record<string, unknown>, agent?: string) =>
      gql(
        server.url,
        `mutation($input: ScheduleInput!) { createSchedule(input: $input) { id } }`,
        { input: { cron: "0 9 * * *", task: "Compute 1 + 1", agent, input } }
      )
    const refusals = [
      [await made({ mode: "SOMETIMES" }), "InvalidRunInputError"],
      [await made({ tools: ["no.such.tool"] }), "InvalidRunInputError"],
      [await made({}, "no-such-agent"), "AGENT_NOT_FOUND"],
      [await made({ webhook: { url: "http://elsewhere.example/hook" } }), "WEBHOOK_URL_NOT_ALLOWED"]
    ] as const
    for (const [r, code] of refusals) expect(r.body.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).toBe(code)
    expect((await gql(server.url, `{ schedules { id } }`)).body.data!.schedules).toEqual([])
  })
})

describe(`a schedule's tick (${backend})`, () => {
  it("is taken by one of the processes looking at once: the one that moves its next tick on", async () => {
    const taken = await Effect.runPromise(
      Effect.gen(function*() {
        const schedules = yield* Schedules.Schedules
        yield* schedules.create("", {
          id: "tick",
          cron: "* * * * *",
          task: "Compute 1 + 1",
          input: {},
          enabled: true,
          nextTickAt: 1_000
        })
        return yield* Effect.all(
          Array.from({ length: 5 }, () => schedules.takeTick("tick", 1_000, 1_000, 61_000)),
          { concurrency: "unbounded" }
        )
      }).pipe(Effect.provide(Layer.provideMerge(Schedules.layer, storeLayer())))
    )
    expect(taken.filter(Boolean)).toHaveLength(1)
  })
})

describe.skipIf(backend !== "postgres")("schedules on servers sharing PostgreSQL", () => {
  it("ticks missed while no server looked start one run, for the latest of them", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const a = await startServer({ db })
    try {
      const made = await gql(
        a.url,
        `mutation($input: ScheduleInput!) { createSchedule(input: $input) { id } }`,
        { input: { cron: "* * * * *", task: "Compute 1 + 1", enabled: false, input: { mode: "SIMPLE" } } }
      )
      const id = made.body.data!.createSchedule.id as string
      // as a server that stopped five minutes ago left it: five ticks missed
      const missedSince = Date.now() - 5 * 60_000
      await Effect.runPromise(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE schedules SET enabled = 1, next_tick = ${missedSince} WHERE id = ${id}`
        ).pipe(
          Effect.provide(storeLayer(db)),
          Effect.scoped
        )
      )
      const s = await waitFor(async () => {
        const now = await read(a.url, id)
        return now.runs.length > 0 ? now : undefined
      }, 20_000)
      const latestTick = Math.floor(Date.now() / 60_000) * 60_000
      expect([latestTick, latestTick - 60_000]).toContain(Date.parse(s.lastRunAt))
      // one run for the five ticks (a sixth only if the next minute came meanwhile)
      expect(s.runs.length).toBeLessThanOrEqual(Date.now() >= latestTick + 60_000 ? 2 : 1)
      expect(Date.parse(s.nextRunAt)).toBeGreaterThan(Date.parse(s.lastRunAt))
    } finally {
      await a.stop()
    }
  }, 60_000)

  it("two servers start one run per tick between them", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const a = await startServer({ db })
    const b = await startServer({ db })
    try {
      const id = (await create(a.url, "*/2 * * * * *")).body.data!.createSchedule.id as string
      const s = await waitFor(async () => {
        const now = await read(b.url, id)
        return now.runs.length >= 4 ? now : undefined
      }, 30_000)
      await gql(a.url, `mutation($id: ID!) { pauseSchedule(id: $id) { id } }`, { id })
      const times = (s.runs as Array<{ createdAt: string }>).map((r) => Date.parse(r.createdAt)).sort()
      // one run per tick: no two within the same 2 s tick
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1_000)
    } finally {
      await a.stop()
      await b.stop()
    }
  }, 60_000)
})
