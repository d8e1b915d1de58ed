import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { attemptPlan } from "../../src/record/Attempt.js"
import { applyEvent, emptyRecord, foldEvents } from "../../src/record/RunRecord.js"
import { prepare } from "../../src/run/Run.js"
import { scripted } from "../support/engine.js"
import { convergingScript, refiningForever } from "../support/scripts.js"

/**
 * The plan the kernel reads before each step is projected again only where events changed it (Attempt.attemptPlan):
 * after every event of whole runs, it equals the plan projected afresh from the same events.
 */
describe("the attempt's plan, projected as events come", () => {
  it.effect("equals a fresh projection after every event (refinements, several passes, a plan replaced)", () =>
    Effect.gen(function*() {
      for (
        const [script, task] of [
          [refiningForever("s1"), "Explain the sum of 2 and 3 in depth"],
          [convergingScript(), "Compute 6 * 7 and explain it"]
        ] as const
      ) {
        const { layer } = scripted(script)
        const log = yield* Effect.gen(function*() {
          const p = yield* prepare({ task, mode: "FULL", budget: { ttl: 4 } })
          yield* p.execute
          return yield* p.events.log
        }).pipe(Effect.provide(layer))
        expect(log.filter((e) => e._tag === "StepFinished").length).toBeGreaterThan(1)
        const live = emptyRecord()
        let compared = 0
        log.forEach((event, i) => {
          applyEvent(live, event)
          if (!live.attempt) return
          const fresh = foldEvents(log.slice(0, i + 1)).attempt!
          expect(attemptPlan(live.attempt), `after event ${event.seq} (${event._tag})`).toEqual(attemptPlan(fresh))
          compared++
        })
        expect(compared).toBeGreaterThan(10)
      }
    }))
})
