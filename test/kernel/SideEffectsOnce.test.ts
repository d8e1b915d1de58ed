import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import * as ToolRegistry from "../../src/tools/ToolRegistry.js"
import { scripted } from "../support/engine.js"
import { noIssues, planOut, profile, reasoned, verdict } from "../support/scripts.js"

/**
 * A side effect done once is not done again by the next attempt (#69 item 15): in AUTO, a simple iteration that does
 * not converge is followed by another iteration and the escalated FULL run, each executing the plan from the start.
 * A call with side effects that succeeded in this run (same tool, same input) is not made again: its recorded result
 * is reused, and the run's log says so. A different input is a new call.
 */
const bank = () => {
  const calls: Array<unknown> = []
  const update = ToolRegistry.tool({
    name: "bank.update_user_info",
    description: "Updates the user's address at the bank.",
    input: Schema.Struct({ street: Schema.String, city: Schema.String }),
    output: Schema.Struct({ value: Schema.String }),
    timeoutMs: 1_000,
    idempotent: false,
    run: (input) => Effect.sync(() => (calls.push(input), { value: `address set to ${input.street}, ${input.city}` }))
  })
  return { calls, update }
}

const TASK = "Update my address to 12 Rue Lepic, Paris, and say what changed"
/** s1 changes the address (a side effect); s2 explains; the judge never says it converged. */
const script = (street: () => string) => ({
  [PromptId.TASKPROFILE_INFERENCE_USER]: [profile(2)],
  [PromptId.PLAN_GENERATION_USER]: [() =>
    planOut([
      {
        id: "s1",
        d: "Set the address to 12 Rue Lepic, Paris",
        tool: "bank.update_user_info",
        input: { street: street(), city: "Paris" }
      },
      { id: "s2", d: "Say what changed in the address", deps: ["s1"] }
    ], TASK)],
  [PromptId.VALIDATION_SEMANTIC_USER]: [noIssues],
  // the explanation cannot be given: the step is blocked, the attempt does not pass
  [PromptId.REASONING_STEP_USER]: [reasoned("I cannot see the old address to compare.", "BLOCKED")],
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)]
})

const ofTag = <T extends RunEvent["_tag"]>(events: ReadonlyArray<RunEvent>, tag: T) =>
  events.filter((e): e is Extract<RunEvent, { _tag: T }> => e._tag === tag)

describe("a call with side effects is made once a run (#69.15)", () => {
  it.effect("two simple iterations and the escalation: the address is changed once, its result reused after", () => {
    const { calls, update } = bank()
    const engine = scripted(script(() => "12 Rue Lepic"), { tools: [update] })
    return Effect.gen(function*() {
      const run = yield* prepare({ task: TASK, mode: "AUTO", simpleIterations: 2, memory: false, budget: { ttl: 2 } })
      const result = yield* run.execute
      const events = yield* run.events.log
      // every attempt ran the plan: two iterations, then FULL
      expect(ofTag(events, "SimpleIterationFinished")).toHaveLength(2)
      expect(ofTag(events, "Escalated")).toHaveLength(1)
      const invoked = ofTag(events, "ToolInvoked")
      expect(invoked).toHaveLength(3)
      // the bank saw one call; every later step took its result, saying from where
      expect(calls).toEqual([{ street: "12 Rue Lepic", city: "Paris" }])
      const [first, ...later] = invoked
      expect(first!.reusedFrom).toBeUndefined()
      for (const e of later) {
        expect(e.reusedFrom).toEqual({ seq: first!.seq, passNumber: first!.passNumber, stepId: "s1" })
        expect(e.output).toEqual(first!.output)
      }
      expect(result.status).not.toBe("CONVERGED")
    }).pipe(Effect.provide(engine.layer))
  })

  it.effect("a different input is a new call, made under the usual rules", () => {
    const { calls, update } = bank()
    let n = 0
    const engine = scripted(script(() => `${12 + n++} Rue Lepic`), { tools: [update] })
    return Effect.gen(function*() {
      const run = yield* prepare({ task: TASK, mode: "AUTO", simpleIterations: 2, escalate: false, memory: false })
      yield* run.execute
      const invoked = ofTag(yield* run.events.log, "ToolInvoked")
      expect(invoked.length).toBe(2)
      expect(calls).toEqual([{ street: "12 Rue Lepic", city: "Paris" }, { street: "13 Rue Lepic", city: "Paris" }])
      expect(invoked.every((e) => e.reusedFrom === undefined)).toBe(true)
    }).pipe(Effect.provide(engine.layer))
  })
})
