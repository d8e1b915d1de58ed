import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Schedules from "../../src/store/Schedules.js"
import { backend, freshDatabase, storeLayer } from "../support/database.js"
import { gql, startServer, type TestServer } from "../support/server.js"
import { receiver } from "../support/webhooks.js"

/**
 * Schedules (#73.3) through GraphQL: a task on a cron of 6 fields (every 2 s) starts one run per tick, each naming its
 * schedule; paused, it starts none; deleted, it is gone; a bad cron or time zone is INVALID_SCHEDULE. On PostgreSQL,
 * two servers looking at the same schedule start one run per tick between them.
 */
let server: TestServer
let hooks: Awaited<ReturnType<typeof receiver>>
beforeAll(async () => {
  hooks = await receiver()
  server = await startServer({ webhooks: hooks.settings })
})
afterAll(async () => {
  await server?.stop()
  await hooks?.close()
})

/**
 * A schedule's runs each tell a webhook at `/started/<name>` they started — how a test hears each tick as it comes
 * (nothing is read again on a timer).
 */
const startedHook = (name: string) => ({ url: `${hooks.url}/started/${name}`, events: ["run.started"] })
/** Once `count` runs of the schedule hooked as `name` have said they started: their ids, in order. */
const startedRuns = async (name: string, count: number, timeoutMs?: number) =>
  (await hooks.until((all) => all.filter((g) => g.path.endsWith(`/started/${name}`)).length >= count, timeoutMs))
    .filter((g) => g.path.endsWith(`/started/${name}`))
    .map((g) => g.payload.data.runId as string)

const SCHEDULE = `id cron enabled nextRunAt lastRunAt runs { id status createdAt }`
const create = (url: string, cron: string, name = "", timezone?: string) =>
  gql(
    url,
    `mutation($input: ScheduleInput!) { createSchedule(input: $input) { ${SCHEDULE} } }`,
    {
      input: {
        cron,
        timezone,
        task: "Compute 1 + 1",
        input: { mode: "SIMPLE", memory: false, ...(name ? { webhook: startedHook(name) } : {}) }
      }
    }
  )
const read = async (url: string, id: string) =>
  (await gql(url, `query($id: ID!) { schedule(id: $id) { ${SCHEDULE} } }`, { id })).body.data?.schedule

describe("schedules", () => {
  it("every 2 s: a run per tick, each naming its schedule; paused none; deleted gone", async () => {
    const made = await create(server.url, "*/2 * * * * *", "every-2s")
    expect(made.body.errors).toBeUndefined()
    const id = made.body.data!.createSchedule.id as string
    expect(made.body.data!.createSchedule).toMatchObject({ enabled: true, lastRunAt: null })
    await startedRuns("every-2s", 2)
    const ran = await read(server.url, id)
    const [second, first] = ran.runs
    expect(Date.parse(second.createdAt) - Date.parse(first.createdAt)).toBeGreaterThanOrEqual(1_000)
    const run = (await gql(server.url, `query($id: ID!) { run(id: $id) { scheduleId tags } }`, { id: first.id }))
      .body.data!.run
    expect(run.scheduleId).toBe(id)
    expect(run.tags).toContain(`schedule:${id}`)

    const paused = await gql(server.url, `mutation($id: ID!) { pauseSchedule(id: $id) { enabled nextRunAt } }`, { id })
    expect(paused.body.data!.pauseSchedule).toEqual({ enabled: false, nextRunAt: null })
    const before = new Set(((await read(server.url, id)).runs as Array<{ id: string }>).map((r) => r.id))
    const count = before.size
    // two ticks' time, as a witness on the same cron counts it: none starts while paused
    const witness = (await create(server.url, "*/2 * * * * *", "witness")).body.data!.createSchedule.id as string
    const [firstTick, secondTick] = await startedRuns("witness", 2)
    const tickTimes = await Promise.all(
      [firstTick!, secondTick!].map(async (runId) =>
        Date.parse(
          (await gql(server.url, `query($id: ID!) { run(id: $id) { createdAt } }`, { id: runId })).body.data!.run
            .createdAt
        )
      )
    )
    expect(tickTimes[1]! - tickTimes[0]!).toBeGreaterThanOrEqual(1_000)
    expect((await read(server.url, id)).runs.length).toBe(count)
    await gql(server.url, `mutation($id: ID!) { deleteSchedule(id: $id) }`, { id: witness })
    const resumed = await gql(server.url, `mutation($id: ID!) { resumeSchedule(id: $id) { enabled } }`, { id })
    expect(resumed.body.data!.resumeSchedule.enabled).toBe(true)
    const after = await hooks.next((g) => g.path.endsWith("/started/every-2s") && !before.has(g.payload.data.runId))
    expect(((await read(server.url, id)).runs as Array<{ id: string }>).map((r) => r.id)).toContain(
      after.payload.data.runId
    )

    expect((await gql(server.url, `mutation($id: ID!) { deleteSchedule(id: $id) }`, { id })).body.data!.deleteSchedule)
      .toBe(true)
    expect(await read(server.url, id)).toBeNull()
    expect((await gql(server.url, `{ schedules { id } }`)).body.data!.schedules).toEqual([])
  }, 60_000)

  it("a bad cron or time zone is INVALID_SCHEDULE, nothing made", async () => {
    for (const [cron, tz] of [["* * *", undefined], ["61 * * * *", undefined], ["0 9 * * *", "Mars/Olympus"]]) {
      const r = await create(server.url, cron!, "", tz)
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
    const a = await startServer({ db, webhooks: hooks.settings })
    try {
      const made = await gql(
        a.url,
        `mutation($input: ScheduleInput!) { createSchedule(input: $input) { id } }`,
        {
          input: {
            cron: "* * * * *",
            task: "Compute 1 + 1",
            enabled: false,
            input: { mode: "SIMPLE", webhook: startedHook("missed") }
          }
        }
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
      await startedRuns("missed", 1)
      const s = await read(a.url, id)
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
    const a = await startServer({ db, webhooks: hooks.settings })
    const b = await startServer({ db, webhooks: hooks.settings })
    try {
      const id = (await create(a.url, "*/2 * * * * *", "two-servers")).body.data!.createSchedule.id as string
      await startedRuns("two-servers", 4)
      const s = await read(b.url, id)
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
