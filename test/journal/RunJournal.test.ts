import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Exit, Fiber, Layer, Schema, Stream } from "effect"
import type { RunEvent, RunEventBody } from "../../src/domain/RunEvent.js"
import * as RunJournal from "../../src/journal/RunJournal.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { runTask } from "../../src/run/Run.js"
import { tool } from "../../src/tools/ToolRegistry.js"
import { scripted } from "../support/engine.js"
import { convergedEnd } from "../support/fixtures.js"
import { convergingScript, planOut, reasoned } from "../support/scripts.js"

const pass = (n: number): RunEventBody => ({ _tag: "PassFinished", passNumber: n, ttlRemaining: 0 })
const finished: RunEventBody = convergedEnd

/** A sink whose writes wait on a gate the test opens, recording each batch it is given. */
const gatedSink = Effect.gen(function*() {
  const batches: Array<Array<number>> = []
  let gate = yield* Deferred.make<void>()
  const sink: RunJournal.EventSinkService = {
    append: (events) =>
      Deferred.await(gate).pipe(Effect.tap(() => {
        batches.push(events.map((e) => e.seq))
      }))
  }
  return {
    sink,
    batches,
    open: Effect.suspend(() => Deferred.succeed(gate, undefined)),
    close: Effect.suspend(() =>
      Deferred.make<void>().pipe(Effect.map((d) => {
        gate = d
      }))
    )
  }
})

describe("the run's event writer (group commit)", () => {
  it.effect("a followed run gives the event loop a turn after each event: its subscribers' writes go out as it runs", () =>
    Effect.gen(function*() {
      for (const sink of [RunJournal.noSink, { append: () => Effect.void }]) {
        const events = yield* RunJournal.make("r-turns", sink)
        // a subscriber's write to its socket happens in process.nextTick, as Node's streams do
        const written = new Set<number>()
        const { stop } = events.follow(1, (e) => process.nextTick(() => written.add(e.seq)))
        const late: Array<number> = []
        for (let i = 1; i <= 20; i++) {
          yield* events.emit(pass(i))
          if (!written.has(i)) late.push(i)
        }
        stop()
        expect(late).toEqual([])
        // nobody following: no turn taken (the run computes on at once). A turn would run this tick first
        let ticked = false
        process.nextTick(() => (ticked = true))
        yield* events.emit(pass(21))
        expect(ticked).toBe(false)
      }
    }))

  it.effect("stores events in order in batches; nothing reaches a subscriber before it is stored", () =>
    Effect.gen(function*() {
      const { sink, batches, open } = yield* gatedSink
      const events = yield* RunJournal.make("r1", sink)
      const received: Array<RunEvent> = []
      const follower = yield* events.changes(0).pipe(
        Stream.runForEach((e) => Effect.sync(() => received.push(e))),
        Effect.fork
      )
      for (let i = 1; i <= 5; i++) yield* events.emit(pass(i)) // plain events: the run does not wait for them
      yield* Effect.yieldNow()
      expect(received).toEqual([])
      expect((yield* events.log).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5])
      // a late subscriber replays only what is stored: nothing yet
      const late = yield* events.changes(0).pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      yield* open
      yield* events.flushed
      expect(batches.flat()).toEqual([1, 2, 3, 4, 5])
      expect(batches.length).toBeLessThan(5) // the events emitted while the first write waited went in one batch
      yield* events.emit(finished)
      yield* Fiber.join(follower)
      expect(received.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6])
      expect(Chunk.toArray(yield* Fiber.join(late)).map((e) => e.seq)).toEqual([1])
    }))

  it.effect("an idle writer stores what the run emitted before it woke in one commit; emitAll's events commit together", () =>
    Effect.gen(function*() {
      const { sink, batches, open } = yield* gatedSink
      yield* open
      const events = yield* RunJournal.make("r-idle", sink)
      yield* events.emit(pass(1))
      yield* events.flushed // the writer now waits for the next event
      for (let i = 2; i <= 4; i++) yield* events.emit(pass(i))
      yield* events.flushed
      // a pass's end: its revision and its PassFinished
      const ended = yield* events.emitAll(
        [{ _tag: "AdvisoryRaised", passNumber: 5, advisory: "profile kept" }],
        () => pass(5)
      )
      yield* events.flushed
      expect(batches).toEqual([[1], [2, 3, 4], [5, 6]])
      expect(ended.map((e) => [e.seq, e._tag])).toEqual([[5, "AdvisoryRaised"], [6, "PassFinished"]])
      expect((yield* events.log).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6])
    }))

  it.effect("follow: the stored events now, then each event once as it is stored, until stopped", () =>
    Effect.gen(function*() {
      const { sink, open, close } = yield* gatedSink
      const events = yield* RunJournal.make("r4", sink)
      yield* open
      yield* events.emit(pass(1))
      yield* events.flushed
      yield* close
      yield* events.emit(pass(2)) // emitted, not yet stored
      const seen: Array<number> = []
      const { past, stop } = events.follow(0, (e) => seen.push(e.seq))
      expect(past.map((e) => e.seq)).toEqual([1]) // only what is stored
      const late = events.follow(3, () => seen.push(-1)) // asks for seq ≥ 3 only
      yield* open
      yield* events.flushed
      expect(seen).toEqual([2])
      stop()
      yield* events.emit(pass(3))
      yield* events.flushed
      expect(seen).toEqual([2, -1]) // the stopped follower got nothing more; the late one got seq 3
      late.stop()
      yield* events.emit(pass(4))
      yield* events.flushed
      expect(seen).toEqual([2, -1])
    }))

  it.effect("a finished run's stream ends after what is stored, also when asked from beyond its end", () =>
    Effect.gen(function*() {
      const events = yield* RunJournal.make("r5", RunJournal.noSink)
      yield* events.emit(pass(1))
      yield* events.emit(finished)
      expect(Chunk.toArray(yield* Stream.runCollect(events.changes(0))).map((e) => e.seq)).toEqual([1, 2])
      expect(Chunk.toArray(yield* Stream.runCollect(events.changes(9)))).toEqual([])
      expect(events.follow(9, () => {})).toMatchObject({ past: [], finished: true })
    }))

  it.effect("the run's end is a durability point: emit returns only once it is stored", () =>
    Effect.gen(function*() {
      const { sink, batches, open } = yield* gatedSink
      const events = yield* RunJournal.make("r2", sink)
      yield* events.emit(pass(1))
      const emitting = yield* events.emit(finished).pipe(Effect.fork)
      yield* Effect.yieldNow()
      expect(emitting.unsafePoll()).toBeNull() // still waiting for the store
      yield* open
      const stored = yield* Fiber.join(emitting)
      expect(stored.seq).toBe(2)
      expect(batches.flat()).toContain(2)
      expect(RunJournal.isDurabilityPoint(stored)).toBe(true)
    }))

  it.live("a tool with side effects starts only once what came before is stored, and the run waits for its record; an idempotent tool does not wait", () =>
    Effect.gen(function*() {
      const stored: Array<RunEvent> = []
      // a slow store: each write takes 30 ms
      const slow: RunJournal.EventSinkService = {
        append: (events) =>
          Effect.sleep("30 millis").pipe(Effect.tap(() => {
            stored.push(...events)
          }))
      }
      const seenAtStart = new Map<string, Array<string>>()
      const probe = (name: string, idempotent: boolean) =>
        tool({
          name,
          description: `Writes the record with ${name}.`,
          input: Schema.Struct({ record: Schema.String }),
          output: Schema.Struct({ ok: Schema.Boolean }),
          timeoutMs: 5_000,
          idempotent,
          run: ({ record }) =>
            Effect.sync(() => {
              seenAtStart.set(record, stored.map((e) => `${e._tag}:${(e as { stepId?: string }).stepId ?? ""}`))
              return { ok: true }
            })
        })
      const { layer } = scripted({
        ...convergingScript(),
        [PromptId.PLAN_GENERATION_USER]: [planOut([
          { id: "s1", d: "Write the record 'pure' to the journal", tool: "journal.pure", input: { record: "pure" } },
          {
            id: "s2",
            d: "Write the record 'effect' to the ledger",
            tool: "ledger.effect",
            input: { record: "effect" },
            deps: ["s1"]
          }
        ], "Write the two records")],
        [PromptId.REASONING_STEP_USER]: [(r: any) => reasoned(`wrote ${r.input.stepId}`)]
      }, { tools: [probe("journal.pure", true), probe("ledger.effect", false)] })
      const r = yield* runTask({ task: "Write the two records", mode: "FULL" }).pipe(
        Effect.provide(Layer.merge(layer, Layer.succeed(RunJournal.EventSink, slow)))
      )
      expect(r.status).not.toBe("FAILED")
      expect(seenAtStart.get("pure")).not.toContain("StepStarted:s1") // the idempotent tool ran before its step's start was stored
      expect(seenAtStart.get("effect")).toContain("StepStarted:s2") // the tool with side effects waited for it
      expect(seenAtStart.get("effect")).toContain("ToolInvoked:s1")
      // the record of the side effect was stored before the step went on to its reasoning
      const invoked = stored.findIndex((e) => e._tag === "ToolInvoked" && e.stepId === "s2")
      const reasonedAfter = stored.findIndex((e) => e._tag === "LlmCalled" && e.seq > stored[invoked]!.seq)
      expect(invoked).toBeGreaterThanOrEqual(0)
      expect(reasonedAfter).toBeGreaterThan(invoked)
    }))

  it.effect("a store failure stops the run loudly: the next emit dies with it, nothing is published", () =>
    Effect.gen(function*() {
      const failing: RunJournal.EventSinkService = { append: () => Effect.die(new Error("disk full")) }
      const events = yield* RunJournal.make("r3", failing)
      yield* events.emit(pass(1))
      const flushed = yield* Effect.exit(events.flushed)
      expect(Exit.isFailure(flushed) && String(Exit.isFailure(flushed) ? flushed.cause : "")).toContain("disk full")
      const next = yield* Effect.exit(events.emit(pass(2)))
      expect(Exit.isFailure(next)).toBe(true)
      expect((yield* events.log).map((e) => e.seq)).toEqual([1])
    }))
})
