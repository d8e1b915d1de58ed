import { describe, expect, it } from "vitest"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { feed } from "../../src/runs/EventFeed.js"

const event = (seq: number): RunEvent =>
  ({ _tag: "PhaseEntered", runId: "r", seq, at: seq, passNumber: 1, phase: "EXECUTE" }) as RunEvent

/** A run's events as a feed source: `past` now, then whatever the test pushes. */
const source = (past: Array<RunEvent>) => {
  let push: ((e: RunEvent) => void) | undefined
  let stopped = false
  return {
    feedSource: (p: (e: RunEvent) => void) => {
      push = p
      return { past, finished: false, stop: () => void (stopped = true) }
    },
    push: (e: RunEvent) => push?.(e),
    stopped: () => stopped
  }
}

describe("a subscriber's buffer", () => {
  it("a reader that keeps up gets every event in order", async () => {
    const s = source([event(1)])
    const it = feed(s.feedSource, (e) => e.seq, () => {}, 3)
    s.push(event(2))
    s.push(event(3))
    expect([(await it.next()).value, (await it.next()).value, (await it.next()).value]).toEqual([1, 2, 3])
  })

  it("is bounded: a reader too far behind is closed with a coded error naming where to resume, and nothing is lost", async () => {
    const past = Array.from({ length: 5 }, (_, i) => event(i + 1))
    const s = source(past)
    let closed = 0
    const it = feed(s.feedSource, (e) => e.seq, () => void closed++, 3)
    for (let seq = 6; seq <= 20; seq++) s.push(event(seq)) // the reader reads nothing meanwhile
    expect(s.stopped()).toBe(true) // the run no longer pushes to it
    const error = await it.next().then(() => undefined, (e) => e)
    expect(error.extensions).toEqual({ code: "SUBSCRIBER_TOO_SLOW", fromSeq: 1 })
    expect(error.message).toContain("subscribe again with fromSeq: 1")
    expect(closed).toBe(1)
    expect(await it.next()).toEqual({ value: undefined, done: true })
  })

  it("ends a turn of the event loop after its last event: a transport writes the end apart from the last result", async () => {
    const s = source([event(1)])
    const it = feed(s.feedSource, (e) => e._tag, () => {}, 3)
    s.push({ ...event(2), _tag: "RunFinished" } as RunEvent)
    expect((await it.next()).value).toBe("PhaseEntered")
    expect((await it.next()).value).toBe("RunFinished")
    // what the transport does with the last result in this turn (its write) comes before the end
    const order: Array<string> = []
    setImmediate(() => order.push("the turn after the last result"))
    const done = await it.next()
    order.push("end")
    expect(done).toEqual({ value: undefined, done: true })
    expect(order).toEqual(["the turn after the last result", "end"])
    expect(s.stopped()).toBe(true)
  })
})
