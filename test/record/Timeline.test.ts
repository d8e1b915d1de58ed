import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { foldEvents } from "../../src/record/RunRecord.js"
import { timelineOf } from "../../src/record/Timeline.js"
import { prepare } from "../../src/run/Run.js"
import { scripted } from "../support/engine.js"
import { convergingScript } from "../support/scripts.js"

describe("the timeline: a projection of the run's record", () => {
  it.effect("passes, phases and steps with their times; the budget used and left; open spans run until now", () =>
    Effect.gen(function*() {
      const run = yield* prepare({ task: "Compute 6 * 7 and explain it", mode: "FULL", budget: { maxLlmCalls: 40 } })
      const result = yield* run.execute
      const log = yield* run.events.log
      const finished = timelineOf(foldEvents(log), Number.MAX_SAFE_INTEGER)
      const at = (tag: string, f: (e: any) => boolean = () => true) => log.find((e) => e._tag === tag && f(e))!.at
      expect(finished.passes.map((p) => p.passNumber)).toEqual([0, 1])
      const [plan, execute] = finished.passes
      expect(plan!.phases.map((p) => p.phase)).toEqual(["PLAN"])
      expect(execute!.phases.map((p) => p.phase)).toEqual(["EXECUTE", "EVALUATE"])
      // a phase ends where the next begins; the last where its pass does
      expect(execute!.phases[0]!.end).toBe(execute!.phases[1]!.start)
      expect(execute!.phases[1]!.end).toBe(execute!.end)
      expect(execute!.steps.map((s) => [s.stepId, s.status])).toEqual([["s1", "complete"], ["s2", "complete"]])
      const s1 = execute!.steps[0]!
      expect(s1.start).toBe(at("StepStarted", (e) => e.stepId === "s1"))
      expect(s1.end).toBe(at("StepFinished", (e) => e.stepId === "s1"))
      expect(s1.durationMs).toBe(s1.end! - s1.start)
      // finished: now does not move it
      expect(finished.elapsedMs).toBe(at("RunFinished") - log[0]!.at)
      const calls = finished.budget.find((g) => g.name === "calls")!
      expect(calls).toEqual({ name: "calls", used: result.usage.llmCalls, cap: 40, left: 40 - result.usage.llmCalls })
      expect(finished.budget.find((g) => g.name === "ttl")!.used).toBe(1)

      // cut right after s1 started: s1 is running, its duration and the open pass run until now
      const cut = log.findIndex((e) => e._tag === "StepStarted" && e.stepId === "s1")
      const now = log[cut]!.at + 5_000
      const open = timelineOf(foldEvents(log.slice(0, cut + 1)), now)
      const running = open.passes[1]!.steps[0]!
      expect(running).toMatchObject({ stepId: "s1", status: "running", end: undefined, durationMs: 5_000 })
      expect(open.passes[1]!.end).toBeUndefined()
      expect(open.elapsedMs).toBe(now - log[0]!.at)
    }).pipe(Effect.provide(scripted(convergingScript()).layer)))
})
