import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import { scripted } from "../support/engine.js"

/**
 * A task needing none of Aeon's own tools is planned with the short prompt (#58 item 3); a model that cannot answer
 * it (an endpoint, or a stub, that knows only the whole plan prompt) gets the whole one with the tools, said.
 */
const TASK = "What is the capital of France?"
const plan = {
  output: { steps: [{ stepId: "s1", description: "Name the capital", answer: "Paris is the capital of France." }] }
}

const run = (script: Parameters<typeof scripted>[0]) => {
  const engine = scripted(script, { fallback: false })
  return Effect.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare({ task: TASK, memory: false })
      const result = yield* p.execute
      return { result, log: yield* p.events.log, calls: engine.calls.map((c) => c.promptId) }
    }).pipe(Effect.provide(engine.layer))
  )
}

describe("the short plan prompt for a task needing no tool", () => {
  it("is one call, with no catalog", async () => {
    const { calls, log, result } = await run({ [PromptId.PLAN_DIRECT_USER]: [plan] })
    expect(result.status).toBe("CONVERGED")
    expect(calls).toEqual([PromptId.PLAN_DIRECT_USER])
    expect(log.find((e) => e._tag === "ToolsOffered")).toMatchObject({ tools: [], selected: true })
  })

  it("a model that cannot answer it gets the whole plan prompt with the tools, and the run says so", async () => {
    const { calls, log, result } = await run({
      [PromptId.PLAN_DIRECT_USER]: [{ error: { status: 503, message: "no such prompt here" } }],
      [PromptId.PLAN_GENERATION_USER]: [plan]
    })
    expect(result.status).toBe("CONVERGED")
    expect(calls.filter((c) => c === PromptId.PLAN_GENERATION_USER)).toHaveLength(1)
    expect(result.advisories.join("\n")).toMatch(/the short plan prompt failed .*planned again with the tools/)
    const offers = log.filter((e) => e._tag === "ToolsOffered")
    expect(offers.at(-1)).toMatchObject({ selected: false })
  })
})
