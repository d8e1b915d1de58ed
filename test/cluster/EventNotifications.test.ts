import type * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import * as EventNotifications from "../../src/cluster/EventNotifications.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { register } from "../../src/run/Run.js"
import { RunStore } from "../../src/store/RunStore.js"
import { backend, storeLayer } from "../support/database.js"
import { scripted } from "../support/engine.js"
import { convergingScript } from "../support/scripts.js"

/**
 * Followers in one process of a run executing on another server: woken by pg_notify at each append's commit, they
 * share one store read per wake (not one each), and each still gets every event once, in order.
 */
if (backend !== "postgres") console.log("EventNotifications test skipped: it needs PostgreSQL (AEON_TEST_DATABASE_URL)")

const FOLLOWERS = 20
const reads: Array<number> = []
/** The store, with its reads of events counted. */
const counted = Layer.effect(
  RunStore,
  Effect.map(RunStore, (store) => ({
    ...store,
    events: (id: string, fromSeq?: number) => {
      reads.push(fromSeq ?? 0)
      return store.events(id, fromSeq)
    }
  }))
)

describe.skipIf(backend !== "postgres")("followers of a run executing elsewhere", () => {
  it.scopedLive(
    "share one store read per notification, and each gets every event once, in order",
    () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const pg = (yield* SqlClient.SqlClient) as PgClient.PgClient
        const { runId } = yield* register({ task: "Compute 6 * 7", mode: "FULL" })
        const fence = yield* store.claim(runId, "elsewhere")
        const notifications = yield* EventNotifications.make(pg, {
          catchUp: Duration.hours(1), // no catch-up read during the test: only notifications wake the followers
          watch: Duration.hours(1)
        }).pipe(Effect.provide(counted))
        const received = Array.from({ length: FOLLOWERS }, () => [] as Array<number>)
        for (const got of received) {
          const source = yield* notifications.source(runId, 1)
          source((event: RunEvent) => void got.push(event.seq))
        }
        // LISTEN is asynchronous: wait until a notification is heard before counting
        yield* Effect.sleep("500 millis")
        reads.length = 0
        const event = (seq: number): RunEvent => ({
          _tag: "PassStarted",
          runId,
          seq,
          at: Date.now(),
          passNumber: 1,
          ttlRemaining: 3
        })
        yield* store.append([event(1), event(2), event(3)], undefined, fence)
        yield* Effect.sleep("300 millis")
        yield* store.append([event(4), event(5)], undefined, fence)
        for (let i = 0; i < 50 && received.some((r) => r.length < 5); i++) yield* Effect.sleep("100 millis")
        for (const got of received) expect(got).toEqual([1, 2, 3, 4, 5])
        // one read per notification (two), not one per follower per notification (forty)
        expect(reads.length).toBeLessThanOrEqual(2)
        expect(reads.length).toBeGreaterThanOrEqual(1)
      }).pipe(
        Effect.provide(Layer.provideMerge(scripted(convergingScript(), { fallback: false }).layer, storeLayer()))
      ),
    30_000
  )
})
