import { describe, expect, it } from "@effect/vitest"
import { Cause, Clock, Effect, Exit, Fiber, TestClock } from "effect"
import { StoreOutageError, StoreUnavailableError } from "../../src/domain/Errors.js"
import * as RunJournal from "../../src/journal/RunJournal.js"
import { convergedEnd } from "../support/fixtures.js"

/**
 * A store away for a while, on the TestClock (time is the subject): the writer tries the batch again backing off from
 * 50 ms to every 2 s (jittered), the run waiting at its durability point, until the store answers or the bound
 * (AEON_STORE_OUTAGE_MS) passes. test/server/DatabaseOutage tries the same against a PostgreSQL that refuses
 * connections, without counting the clock.
 */
const awayUntil = (backAtMs: number) => {
  const attempts: Array<number> = []
  const sink: RunJournal.EventSinkService = {
    append: () =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        attempts.push(now)
        return now < backAtMs
          ? Effect.fail(new StoreUnavailableError({ cause: "PostgreSQL at db:5432 refuses connections" }))
          : Effect.void
      })
  }
  return { sink, attempts }
}

const told = (boundMs: number) => {
  const said: Array<{ readonly waitedMs: number; readonly outcome: RunJournal.WaitOutcome }> = []
  const waits: RunJournal.StoreWaits = {
    boundMs,
    began: () => Effect.void,
    ended: (_runId, waitedMs, outcome) => Effect.sync(() => said.push({ waitedMs, outcome }))
  }
  return { waits, said }
}

describe("the writer while its store is away (TestClock)", () => {
  it.effect("away 12 s: tried again on the clock, at most every 2 s once backed off; the run goes on once it answers", () =>
    Effect.gen(function*() {
      const { attempts, sink } = awayUntil(12_000)
      const { said, waits } = told(60_000)
      const events = yield* RunJournal.make("r-away", sink, [], { storeWaits: waits })
      // the run's end is a durability point: the run waits until it is stored
      const ending = yield* Effect.fork(events.emit(convergedEnd))
      yield* TestClock.adjust("100 millis")
      expect(attempts.length).toBeGreaterThanOrEqual(2) // at once, then after ~50 ms
      yield* TestClock.adjust("11800 millis")
      expect(ending.unsafePoll()).toBeNull()
      // 50, 100, … 1,600 ms, then every 2 s (each jittered): not a storm, not given up
      const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!)
      expect(Math.max(...gaps)).toBeLessThanOrEqual(2_000 * 1.2)
      expect(gaps.slice(-3).every((g) => g >= 2_000 * 0.8)).toBe(true)
      expect(attempts.length).toBeGreaterThanOrEqual(8)
      expect(attempts.length).toBeLessThanOrEqual(14)
      yield* TestClock.adjust("3 seconds")
      expect(Exit.isSuccess(yield* Fiber.await(ending))).toBe(true)
      expect(attempts.at(-1)!).toBeGreaterThanOrEqual(12_000)
      expect(said).toHaveLength(1)
      expect(said[0]!.outcome).toBe("written")
      expect(said[0]!.waitedMs).toBeGreaterThanOrEqual(12_000)
      expect(events.record().finished?._tag).toBe("RunFinished")
    }))

  it.effect("away past the bound: the attempt ends with a StoreOutageError (the run resumes once the store is back)", () =>
    Effect.gen(function*() {
      const { attempts, sink } = awayUntil(Number.MAX_SAFE_INTEGER)
      const { said, waits } = told(5_000)
      const events = yield* RunJournal.make("r-gone", sink, [], { storeWaits: waits })
      const ending = yield* Effect.fork(events.emit(convergedEnd))
      yield* TestClock.adjust("4 seconds")
      expect(ending.unsafePoll()).toBeNull()
      yield* TestClock.adjust("4 seconds")
      const exit = yield* Fiber.await(ending)
      expect(Exit.isFailure(exit)).toBe(true)
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(defect).toBeInstanceOf(StoreOutageError)
      expect(said.map((s) => s.outcome)).toEqual(["gave up"])
      expect(attempts.at(-1)!).toBeLessThanOrEqual(5_000 + 2_400)
    }))
})
