import type * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Layer } from "effect"
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
        // every follower has all five events: awaited as they arrive
        const all = yield* Deferred.make<void>()
        for (const got of received) {
          const source = yield* notifications.source(runId, 1)
          source((event: RunEvent) => {
            got.push(event.seq)
            if (received.every((r) => r.length >= 5)) Deferred.unsafeDone(all, Exit.void)
          })
        }
        const event = (seq: number, id = runId): RunEvent => ({
          _tag: "PassStarted",
          runId: id,
          seq,
          at: Date.now(),
          passNumber: 1,
          ttlRemaining: 3
        })
        // LISTEN is asynchronous: a probe run's events are appended until one is heard, then the reads are counted
        const probe = yield* register({ task: "Compute 1 + 1", mode: "FULL" })
        const probeFence = yield* store.claim(probe.runId, "elsewhere")
        const heard = yield* Deferred.make<void>()
        ;(yield* notifications.source(probe.runId, 1))(() => void Deferred.unsafeDone(heard, Exit.void))
        for (let seq = 1; !(yield* Deferred.isDone(heard)); seq++) {
          yield* store.append([event(seq, probe.runId)], undefined, probeFence)
          yield* Deferred.await(heard).pipe(Effect.timeout("100 millis"), Effect.ignore)
        }
        reads.length = 0
        yield* store.append([event(1), event(2), event(3)], undefined, fence)
        yield* store.append([event(4), event(5)], undefined, fence)
        yield* Deferred.await(all).pipe(Effect.timeout("5 seconds"), Effect.ignore)
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
