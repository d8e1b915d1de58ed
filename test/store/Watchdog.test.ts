import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, TestClock } from "effect"
import { watchdog } from "../../src/store/Notifications.js"

/** The LISTEN connection's watchdog, on the test's clock: pinged every period, reopened once silent for three. */
const watched = (answers: boolean) =>
  Effect.gen(function*() {
    let heard = yield* Clock.currentTimeMillis
    let pings = 0
    let reopened = 0
    const fiber = yield* Effect.fork(watchdog({
      every: "1 second",
      lastHeard: Effect.sync(() => heard),
      // a connection that answers hears its own ping at once
      ping: Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => (pings++, answers && (heard = now)))),
      reopen: Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => (reopened++, heard = now)))
    }))
    return {
      after: (seconds: number) => Effect.map(TestClock.adjust(`${seconds} seconds`), () => ({ pings, reopened })),
      stop: Fiber.interrupt(fiber)
    }
  })

describe("the LISTEN connection's watchdog", () => {
  it.effect("a connection that hears its pings is never reopened", () =>
    Effect.gen(function*() {
      const w = yield* watched(true)
      expect(yield* w.after(30)).toEqual({ pings: 30, reopened: 0 })
      yield* w.stop
    }))

  it.effect("a silent connection is reopened once three periods have passed unheard, then again three later", () =>
    Effect.gen(function*() {
      const w = yield* watched(false)
      expect((yield* w.after(3)).reopened).toBe(0) // 3 s unheard: not more than three periods yet
      expect((yield* w.after(1)).reopened).toBe(1)
      expect((yield* w.after(3)).reopened).toBe(1)
      expect((yield* w.after(1)).reopened).toBe(2)
      yield* w.stop
    }))
})
