import { Effect, Fiber, PubSub, Queue } from "effect"
import type { RunEvent } from "../src/domain/RunEvent.js"
import { median, now } from "./support.js"

/**
 * Issue 12, item 5: a run's events to its followers as RunJournal hands them out (each follower a callback the writer
 * calls with each stored batch; a subscription's EventFeed bounds its own buffer) against Effect's PubSub (each
 * follower a subscription drained by a fiber of its own). Both deliver `events` events in batches of `batch` (the writer's group
 * commits) to `followers` followers that each keep what they receive; the figure is the wall time from the first
 * publication to the last delivery, median of `rounds`.
 */
export const fanOut = async (followers = 100, events = 10_000, batch = 10, rounds = 7) => {
  const log: Array<RunEvent> = Array.from({ length: events }, (_, i) => ({
    _tag: "PassFinished",
    runId: "bench",
    seq: i + 1,
    at: 0,
    passNumber: i,
    ttlRemaining: 0
  }))
  const batches: Array<Array<RunEvent>> = []
  for (let i = 0; i < events; i += batch) batches.push(log.slice(i, i + batch))

  /** As RunJournal publishes: each stored batch handed to every follower's callback, in the writer's fiber. */
  const callbacks = Effect.gen(function*() {
    const received = Array.from({ length: followers }, () => [] as Array<RunEvent>)
    const set = new Set(received.map((into) => (e: RunEvent) => void into.push(e)))
    const t0 = now()
    for (const b of batches) {
      yield* Effect.yieldNow() // the batch's store write
      for (const f of set) for (const e of b) f(e)
    }
    const ms = now() - t0
    if (received.some((r) => r.length !== events)) throw new Error("callbacks: an event was lost")
    return ms
  })

  /** A PubSub: the writer publishes each stored batch; each follower is a subscription drained by a fiber of its own. */
  const pubsub = Effect.scoped(Effect.gen(function*() {
    const hub = yield* PubSub.unbounded<RunEvent>()
    const received = Array.from({ length: followers }, () => [] as Array<RunEvent>)
    const fibers = yield* Effect.forEach(received, (into) =>
      Effect.gen(function*() {
        const subscription = yield* PubSub.subscribe(hub)
        return yield* Effect.fork(Effect.gen(function*() {
          while (into.length < events) {
            for (const e of yield* Queue.takeBetween(subscription, 1, Number.MAX_SAFE_INTEGER)) into.push(e)
          }
        }))
      }))
    const t0 = now()
    for (const b of batches) {
      yield* Effect.yieldNow() // the batch's store write
      yield* PubSub.publishAll(hub, b)
    }
    yield* Fiber.joinAll(fibers)
    const ms = now() - t0
    if (received.some((r) => r.length !== events)) throw new Error("pubsub: an event was lost")
    return ms
  }))

  const measure = async (what: Effect.Effect<number>) => {
    const times: Array<number> = []
    for (let i = 0; i < rounds; i++) times.push(await Effect.runPromise(what))
    return median(times)
  }
  await measure(callbacks) // warm-up
  await measure(pubsub)
  const callbackMs = await measure(callbacks)
  const pubsubMs = await measure(pubsub)
  return { followers, events, batch, callbackMs, pubsubMs, ratio: pubsubMs / callbackMs }
}
