import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import * as Offline from "../../src/llm/Offline.js"
import { prepare } from "../../src/run/Run.js"
import { offline, runOn } from "../support/engine.js"

const INSTRUCTIONS = "Answer in French. Sign every answer with 'Aeon'."

/**
 * The operator's instructions (RunTaskInput.instructions; the Responses API's `instructions`, an agent's): trusted
 * text in the system prompt of the run's plan and answer calls, and of none of its reviews (a review judges the
 * run's work; its own system prompt is not the operator's to change). The recorded calls say what was sent.
 */
describe("a run's instructions", () => {
  it("are in the system prompt of the plan and answer calls, after the prompt's own text, and of no review", async () => {
    const { events, result } = await runOn(Offline.service, {
      task: "Compute (17 + 25) * 3 and explain the result",
      mode: "FULL",
      instructions: INSTRUCTIONS
    })
    expect(result.status).toBe("CONVERGED")
    const calls = events.flatMap((
      e
    ) => (e._tag === "LlmCalled" && e.call ? [{ id: e.promptId, system: e.call.system }] : []))
    const instructed = calls.filter((c) => c.system.endsWith(INSTRUCTIONS)).map((c) => c.id)
    const plain = calls.filter((c) => !c.system.includes(INSTRUCTIONS)).map((c) => c.id)
    expect(instructed).toContain("plan_generation_user")
    expect(instructed.every((id) => /^(plan_|answer_|recursive_)/.test(id))).toBe(true)
    expect(plain.length).toBeGreaterThan(0)
    expect(plain.every((id) => !/^(plan_|answer_)/.test(id))).toBe(true)
    expect(calls.length).toBe(instructed.length + plain.length)
  })

  it("a run without them sends the prompts as they are", async () => {
    const { events } = await runOn(Offline.service, { task: "Compute 6 * 7", mode: "FULL" })
    const systems = events.flatMap((e) => (e._tag === "LlmCalled" && e.call ? [e.call.system] : []))
    expect(systems.length).toBeGreaterThan(0)
    expect(systems.some((s) => s.includes("operator's instructions"))).toBe(false)
  })

  it("longer than 8000 characters: refused before the run starts, naming the field", async () => {
    const exit = await Effect.runPromiseExit(
      prepare({ task: "Compute 6 * 7", instructions: "x".repeat(8001) }).pipe(Effect.provide(offline))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toContain("instructions must be at most 8000 characters (was 8001)")
  })
})
