import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Stream } from "effect"
import * as EventNotifications from "../../src/cluster/EventNotifications.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { Notifications } from "../../src/store/Notifications.js"
import { RunStore } from "../../src/store/RunStore.js"

/**
 * A follower of a run executing elsewhere whose store read never returns (a stuck connection) must not wait forever:
 * the read is given up past its timeout and the next wake (here the periodic catch-up) reads again.
 */
const runId = "elsewhere-1"
const started = { _tag: "PassStarted", runId, seq: 1, at: 0, passNumber: 1, ttlRemaining: 3 } as RunEvent
const finished = { _tag: "RunFinished", runId, seq: 2, at: 0, status: "CONVERGED" } as unknown as RunEvent

// no notification ever comes (the LISTEN connection is silent): only the catch-up wakes the follower
const silent = Layer.succeed(Notifications, { listening: true, notices: () => Effect.succeed(Stream.never) })

const storeWith = (reads: Array<Effect.Effect<ReadonlyArray<RunEvent>>>) =>
  Layer.succeed(
    RunStore,
    {
      events: () => Effect.suspend(() => reads.shift() ?? Effect.succeed([started, finished]))
    } as unknown as RunStore["Type"]
  )

describe("a follower whose store read is stuck", () => {
  it.scopedLive("gets RunFinished once a later read answers", () =>
    Effect.gen(function*() {
      const notifications = yield* EventNotifications.make({ catchUp: "50 millis", readTimeout: "200 millis" }).pipe(
        Effect.provide(silent)
      )
      const ended = yield* Deferred.make<number>()
      const source = yield* notifications.events(runId, 1)
      source((event) => void (event._tag === "RunFinished" && Deferred.unsafeDone(ended, Effect.succeed(event.seq))))
      expect(yield* Deferred.await(ended).pipe(Effect.timeout("5 seconds"))).toBe(2)
    }).pipe(Effect.provide(storeWith([
      Effect.succeed([started]), // the replay: the run has begun
      Effect.never // the first catch-up read: a connection that never answers
    ]))))
})
