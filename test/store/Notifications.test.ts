import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Redacted, Ref, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { clientLayer } from "../../src/store/Database.js"
import * as Notifications from "../../src/store/Notifications.js"
import { announcement, noticesChannel, type Topic } from "../../src/store/StoreValues.js"

/**
 * The process's one LISTEN connection: every topic Aeon announces (on its one channel) heard over it, and — when it
 * dies — opened again for all of them.
 */
const base = process.env.AEON_TEST_DATABASE_URL
if (!base) console.log("Notifications test skipped: it needs PostgreSQL (AEON_TEST_DATABASE_URL)")

/** This test's connections are told apart from the suite's others by their application name. */
const application = `aeon_listen_${randomUUID().slice(0, 8)}`
const url = new URL(base ?? "postgres://unused")
url.searchParams.set("application_name", application)

/** The watched LISTEN connection (pinged every 200 ms) over a client of this test's own. */
const listening = Notifications.layer({ watch: "200 millis" }).pipe(
  Layer.provideMerge(PgClient.layer({ url: Redacted.make(url.toString()) }))
)

const listeners = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ pid: number }>`SELECT pid FROM pg_stat_activity
    WHERE application_name = ${application} AND query ILIKE 'LISTEN%'`).pipe(
    Effect.map((rows) => rows.map((r) => r.pid))
  )

/** The first notice on the stream that `matches`, within 10 s. */
const first = (notices: Stream.Stream<Notifications.Notice>, matches: (n: Notifications.Notice) => boolean) =>
  Stream.runHead(Stream.filter(notices, matches)).pipe(Effect.timeout("10 seconds"), Effect.flatten)

const notified = (payload: string) => (n: Notifications.Notice) => n._tag === "Notified" && n.payload === payload

describe.skipIf(!base)("the process's LISTEN connection", () => {
  it.scopedLive(
    "hears every topic on one connection, and opens it again for all when it dies",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const service = yield* Notifications.Notifications
        const events = yield* service.notices("events")
        const others = yield* service.notices("events") // a second follower of the process: the same connection
        // LISTEN is asynchronous: announced until heard
        const heard = (stream: typeof events, topic: Topic) =>
          Effect.gen(function*() {
            const payload = `${application}:${randomUUID()}`
            const sending = yield* Effect.fork(
              Effect.forever(Effect.zipRight(
                sql`SELECT pg_notify(${noticesChannel}, ${announcement(topic, payload)})`,
                Effect.sleep("50 millis")
              ))
            )
            yield* first(stream, notified(payload))
            yield* Fiber.interrupt(sending)
            return true
          })
        expect(yield* heard(events, "events")).toBe(true)
        expect(yield* heard(others, "events")).toBe(true)
        const before = yield* listeners
        expect(before).toHaveLength(1) // two followers and the pings: one connection, one LISTEN

        // the connection dies (its client swallows the error: nothing would be heard again)
        yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ${before[0]!}`
        // the watchdog finds it silent and opens it again; each listener is told (it reads what it follows again)
        const reopened = (n: Notifications.Notice) => n._tag === "Reopened"
        yield* Effect.all([first(events, reopened), first(others, reopened)], { concurrency: 2 })
        expect(yield* heard(others, "events")).toBe(true)
        expect(yield* heard(events, "events")).toBe(true)
        const after = yield* listeners
        expect(after).toHaveLength(1)
        expect(after[0]).not.toBe(before[0])
      }).pipe(Effect.provide(listening), Effect.orDie),
    30_000
  )
})

describe.skipIf(!base)("the LISTEN connection's pings", () => {
  it.scopedLive(
    "a live connection hears its own pings and is never opened again",
    () =>
      Effect.gen(function*() {
        const pg = yield* PgClient.PgClient
        const service = yield* Notifications.Notifications
        const reopenings = yield* Ref.make(0)
        const notices = yield* service.notices("events")
        yield* Effect.forkScoped(Stream.runForEach(
          Stream.filter(notices, (n) => n._tag === "Reopened"),
          () => Ref.update(reopenings, (n) => n + 1)
        ))
        // the pings themselves, heard on a connection of the test's own: ten periods of the watchdog (200 ms each)
        const pings = Stream.filter(pg.listen(noticesChannel), (said) => said.startsWith(announcement("ping", "")))
        expect(Chunk.size(yield* Stream.runCollect(Stream.take(pings, 10)).pipe(Effect.timeout("10 seconds"))))
          .toBe(10)
        expect(yield* Ref.get(reopenings)).toBe(0) // silent for three periods, it would have been opened again
      }).pipe(Effect.provide(listening), Effect.orDie),
    30_000
  )
})

describe("the embedded database's notifications", () => {
  it.scopedLive("nothing is heard and no connection is opened", () =>
    Effect.gen(function*() {
      const service = yield* Notifications.Notifications
      expect(service.listening).toBe(false)
      const notices = yield* service.notices("events")
      expect((yield* Stream.runHead(notices).pipe(Effect.timeout("100 millis"), Effect.option))._tag).toBe("None")
    }).pipe(
      Effect.provide(Notifications.layer().pipe(Layer.provide(clientLayer({ dataDir: "memory" })))),
      Effect.orDie
    ))
})
