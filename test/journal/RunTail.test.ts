import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import * as RunJournal from "../../src/journal/RunJournal.js"
import * as RunTail from "../../src/journal/RunTail.js"
import { convergedEnd } from "../support/fixtures.js"

/** The one replay-then-live core: each follower takes the events by seq, each once, none skipped. */
const event = (seq: number): RunEvent => ({
  _tag: "PassStarted",
  runId: "r",
  seq,
  at: 0,
  passNumber: 1,
  ttlRemaining: 3
})
const end = (seq: number): RunEvent => ({ ...convergedEnd, runId: "r", seq, at: 0 })
const events = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => event(from + i))

/** A follower's seqs: its replay, then what it was handed. */
const follower = () => {
  const got: Array<number> = []
  return {
    got,
    onEvent: (e: RunEvent) => void got.push(e.seq),
    replayed: (f: RunTail.Following) => got.unshift(...f.past.map((e) => e.seq))
  }
}

describe("a run's tail", () => {
  it("a follower takes its replay, then each event once: what it has already and what lies past a gap are not given", () => {
    const tail = RunTail.make()
    const a = follower()
    a.replayed(tail.follow(1, events(1, 3), a.onEvent))
    tail.publish(events(2, 5)) // 2 and 3 it has
    tail.publish(events(5, 6)) // 5 again
    tail.publish(events(8, 8)) // past a gap: waits for a read that fills it
    tail.publish(events(7, 9))
    expect(a.got).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it("what is published while a follower's replay is read is given after it, each event once", () => {
    const tail = RunTail.make()
    const joining = tail.join(3)
    tail.publish(events(4, 6)) // (its replay, read after it joined, holds some of these)
    const a = follower()
    const following = joining.start(events(3, 5), a.onEvent)
    a.replayed(following)
    tail.publish(events(6, 7))
    expect(a.got).toEqual([3, 4, 5, 6, 7])
  })

  it("a replay holding events before the follower's point gives only those from it", () => {
    const tail = RunTail.make()
    const a = follower()
    a.replayed(tail.follow(3, events(1, 5), a.onEvent))
    tail.publish(events(6, 6))
    expect(a.got).toEqual([3, 4, 5, 6])
  })

  it("behind: the last event every started follower has; a follower still reading its replay holds nobody back", () => {
    const tail = RunTail.make()
    expect(tail.behind()).toBeUndefined()
    tail.follow(1, events(1, 5), () => {})
    tail.follow(1, events(1, 3), () => {})
    tail.join(1)
    expect(tail.behind()).toBe(3)
    expect(tail.ahead()).toBe(5)
  })

  it("a follower whose replay reaches the run's end is finished; one past the end published is finished too", () => {
    const tail = RunTail.make()
    expect(tail.follow(1, [...events(1, 2), end(3)], () => {}).finished).toBe(true)
    tail.publish([end(3)])
    expect(tail.follow(4, [], () => {}).finished).toBe(true)
    expect(tail.size()).toBe(0)
  })

  it("a follower that throws is dropped; the others go on; the last one leaving is told", () => {
    let empty = 0
    const tail = RunTail.make({ onEmpty: () => empty++ })
    const a = follower()
    tail.follow(1, [], () => {
      throw new Error("gone")
    })
    const { stop } = tail.follow(1, [], a.onEvent)
    tail.publish(events(1, 2))
    expect(a.got).toEqual([1, 2])
    expect(tail.size()).toBe(1)
    stop()
    expect(empty).toBe(1)
  })
})

describe("the tails of a process's runs", () => {
  it("the attempt taking a run up again publishes into the tail its followers are on; it goes once the run has ended", () => {
    const tails = RunTail.makeTails()
    const first = tails.attach("r").tail
    const a = follower()
    first.follow(1, [], a.onEvent)
    first.publish(events(1, 2))
    tails.detach("r", false) // the attempt ended waiting for its store: the follower stays
    expect(tails.get("r")).toBe(first)
    const second = tails.attach("r").tail
    expect(second).toBe(first)
    second.publish([...events(1, 4), end(5)]) // its history (3 was stored, never published), then on
    expect(a.got).toEqual([1, 2, 3, 4, 5])
    tails.detach("r", true)
    expect(tails.get("r")).toBeUndefined()
  })

  it("an attempt's tail nobody follows goes with it; one followed goes when its last follower leaves", () => {
    const tails = RunTail.makeTails()
    tails.attach("r")
    tails.detach("r", false)
    expect(tails.get("r")).toBeUndefined()
    const { stop } = tails.attach("s").tail.follow(1, [], () => {})
    tails.detach("s", false)
    expect(tails.get("s")).toBeDefined()
    stop()
    expect(tails.get("s")).toBeUndefined()
  })
})

describe("a run's followers across its attempts", () => {
  it.effect("its events' and its live output's followers go from an attempt to the one taking the run up again", () =>
    Effect.gen(function*() {
      const tails = RunTail.makeTails()
      const attempt = (history: ReadonlyArray<RunEvent>) =>
        RunJournal.make("r", RunJournal.noSink, history).pipe(Effect.provideService(RunTail.RunTails, tails))
      const advisory = { _tag: "AdvisoryRaised", passNumber: 0, advisory: "a" } as const
      const seqs: Array<number> = []
      const pieces: Array<string> = []
      let outputEnded = false
      const first = yield* attempt([])
      first.follow(1, (e) => void seqs.push(e.seq))
      first.followOutput((d) => void pieces.push(d.text), () => void (outputEnded = true))
      yield* first.emit(advisory)
      yield* (yield* first.openOutput({ promptId: "p" })).push("one")
      yield* first.close // the attempt ends, the run unfinished (its store away, say)
      expect(outputEnded).toBe(false)
      const second = yield* attempt(yield* first.log)
      yield* second.emit(advisory)
      const call = yield* second.openOutput({ promptId: "p" })
      yield* call.push("two")
      yield* call.done
      yield* second.emit({ ...convergedEnd })
      yield* second.close
      expect(seqs).toEqual([1, 2, 3])
      expect(pieces).toEqual(["one", "", "two", ""]) // each call's pieces, then its end
      expect(outputEnded).toBe(true)
      expect(tails.get("r")).toBeUndefined()
    }))
})
