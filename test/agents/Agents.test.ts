import { Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { Agents } from "../../src/index.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { agentTool, MAX_AGENT_DEPTH } from "../../src/run/ChildRuns.js"
import { prepare } from "../../src/run/Run.js"
import { planOut, profile } from "../support/scripts.js"

const MATH = {
  description: "Does arithmetic with the calculator",
  instructions: "Always show the arithmetic.",
  tools: ["calculator"],
  mode: "FULL",
  budget: { maxLlmCalls: 30, maxCostUsd: 0.5 },
  memory: false
}

const engine = (agents: Record<string, unknown>, model: LanguageModel["Type"] = Offline.service) => {
  const base = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model))
  return Layer.provideMerge(Agents.layer({ agents }), base)
}

const run = (input: object, agents: Record<string, unknown> = { math: MATH }, model?: LanguageModel["Type"]) =>
  Effect.runPromiseExit(
    Effect.gen(function*() {
      const p = yield* prepare(input)
      const result = yield* p.execute
      return { result, events: yield* p.events.log }
    }).pipe(Effect.provide(engine(agents, model)))
  )

const ok = async (input: object, agents?: Record<string, unknown>, model?: LanguageModel["Type"]) => {
  const exit = await run(input, agents, model)
  if (Exit.isFailure(exit)) throw new Error(JSON.stringify(exit.cause))
  return exit.value
}

const started = (events: ReadonlyArray<RunEvent>) => events.find((e) => e._tag === "RunStarted")!

describe("a run of an agent (the library)", () => {
  it("runs with the agent's definition: instructions in the plan's system prompt, its tools only, its caps, its mode", async () => {
    const { events } = await ok({ agent: "math", task: "Compute 6 * 7" })
    const first = started(events)
    expect(first._tag === "RunStarted" && first.agent).toMatchObject({ name: "math", version: 1 })
    expect(first._tag === "RunStarted" && first.agent?.definition).toMatchObject({ instructions: MATH.instructions })
    expect(first._tag === "RunStarted" && first.budget.maxLlmCalls).toBe(30)
    expect(first._tag === "RunStarted" && first.mode).toBe("FULL")
    const plan = events.find((e) => e._tag === "LlmCalled" && e.promptId === PromptId.PLAN_GENERATION_USER)
    expect(plan?._tag === "LlmCalled" && plan.call?.system).toContain(MATH.instructions)
    // the plan prompt lists its tools only
    const user = plan?._tag === "LlmCalled" ? plan.call?.user ?? "" : ""
    expect(user).toContain("calculator")
    expect(user).not.toContain("clock.now")
  })

  it("a request may lower the agent's caps and add instructions after the agent's", async () => {
    const { events } = await ok({
      agent: "math",
      task: "Compute 6 * 7",
      budget: { maxLlmCalls: 12 },
      instructions: "Be brief."
    })
    const first = started(events)
    expect(first._tag === "RunStarted" && first.budget.maxLlmCalls).toBe(12)
    expect(first._tag === "RunStarted" && first.instructions).toBe(`${MATH.instructions}\n\nBe brief.`)
  })

  it("an unknown agent or version is AGENT_NOT_FOUND; a request beyond its bounds is AGENT_OVERRIDE naming the field", async () => {
    for (const agent of ["nobody", "math@2", "Bad Name"]) {
      const exit = await run({ agent, task: "Compute 6 * 7" })
      expect(JSON.stringify(exit)).toContain("AGENT_NOT_FOUND")
    }
    const cases: Array<[object, string]> = [
      [{ tools: ["clock.now"] }, "\"tools\""],
      [{ budget: { maxLlmCalls: 31 } }, "budget.maxLlmCalls"],
      [{ budget: { maxCostUsd: 2 } }, "budget.maxCostUsd"],
      [{ memory: true }, "\"memory\""],
      [{ outputSchema: { type: "object", properties: { a: { type: "string" } } } }, "outputSchema"]
    ]
    for (const [extra, field] of cases) {
      const exit = await run({ agent: "math", task: "Compute 6 * 7", ...extra }, {
        math: { ...MATH, outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } }
      })
      expect(Exit.isFailure(exit)).toBe(true)
      expect(JSON.stringify(exit)).toContain("AGENT_OVERRIDE")
      expect(JSON.stringify(exit)).toContain(field)
    }
  })

  it("an agent given inline runs the same way; a bad one is INVALID_AGENT naming the field", async () => {
    const { events } = await ok({ agent: { name: "inline", ...MATH }, task: "Compute 6 * 7" })
    const first = started(events)
    expect(first._tag === "RunStarted" && first.agent).toMatchObject({ name: "inline" })
    expect(first._tag === "RunStarted" && first.agent?.version).toBeUndefined()
    const bad = await run({ agent: { name: "inline", tools: ["no-such-tool"] }, task: "Compute 6 * 7" })
    expect(JSON.stringify(bad)).toContain("INVALID_AGENT")
    expect(JSON.stringify(bad)).toContain("tools.0")
    const badCap = await run({ agent: { name: "inline", budget: { maxLlmCalls: -1 } }, task: "x" })
    expect(JSON.stringify(badCap)).toContain("budget.maxLlmCalls")
  })

  it("the agent's guardrails are the run's, and a request's add to them", async () => {
    const guarded = { ...MATH, guardrails: { input: [{ type: "pii", action: "redact", kinds: ["email"] }] } }
    const { events } = await ok({
      agent: "math",
      task: "Compute 6 * 7 for ines@example.org at 10.20.30.40",
      guardrails: { input: [{ type: "pii", action: "redact", kinds: ["ip"] }] }
    }, { math: guarded })
    const first = started(events)
    expect(first._tag === "RunStarted" && first.task).toBe("Compute 6 * 7 for <EMAIL_1> at <IP_1>")
  })

  it("a bad definition in the layer stops it, naming the agent and the field", async () => {
    const exit = await run({ task: "Compute 6 * 7" }, { math: { ...MATH, mode: "SOMETIMES" } })
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toContain("agents.math.mode")
  })
})

describe("agents as tools", () => {
  const script: Scripted.Script = {
    [PromptId.TASKPROFILE_INFERENCE_USER]: [profile()],
    [PromptId.PLAN_GENERATION_USER]: [planOut([
      { id: "s1", d: "Ask the math agent", tool: "agent.math", input: { task: "Compute 6 * 7" } },
      { id: "s2", d: "Report what it found", deps: ["s1"] }
    ])]
  }
  const agents = {
    math: { ...MATH, mode: "SIMPLE" },
    boss: { instructions: "Delegate arithmetic.", tools: ["agent:math"], mode: "FULL", budget: { maxLlmCalls: 40 } }
  }

  it("a step calls the agent as a child run: its answer is the step's output, its usage the parent's too", async () => {
    const model = Scripted.make(script, Offline.service)
    const { events, result } = await ok({ agent: "boss", task: "What is 6 * 7?", memory: false }, agents, model.service)
    const call = events.find((e) => e._tag === "ToolInvoked" && e.tool === "agent.math")
    expect(call?._tag === "ToolInvoked" && call.error).toBeUndefined()
    const child = call?._tag === "ToolInvoked" ? call.childRun : undefined
    expect(child).toMatchObject({ agent: "math", version: 1 })
    expect(child!.usage.llmCalls).toBeGreaterThan(0)
    expect(typeof (call?._tag === "ToolInvoked" && call.output)).toBe("string")
    const own = events.filter((e) => e._tag === "LlmCalled").length
    expect(result.usage.llmCalls).toBe(own + child!.usage.llmCalls)
    expect(result.usage.llmCalls).toBeLessThanOrEqual(40)
  })

  it("the child's caps come out of what the parent has left: together they never cross the parent's", async () => {
    const model = Scripted.make(script, Offline.service)
    const { events, result } = await ok(
      { agent: "boss", task: "What is 6 * 7?", memory: false, budget: { maxLlmCalls: 8 } },
      agents,
      model.service
    )
    expect(result.usage.llmCalls).toBeLessThanOrEqual(8)
    const call = events.find((e) => e._tag === "ToolInvoked" && e.tool === "agent.math")
    expect(call?._tag === "ToolInvoked" && call.childRun).toBeDefined()
  })

  it("runs nest at most five levels: a call at the fifth fails its step without starting a run", async () => {
    let started = 0
    const call = agentTool({ name: "math", definition: {} }, {
      runId: "r",
      userId: undefined,
      depth: MAX_AGENT_DEPTH,
      guard: undefined as never,
      children: () => Effect.sync(() => started++).pipe(Effect.flatMap(() => Effect.die("not started")))
    })
    const exit = await Effect.runPromiseExit(
      call.run({ task: "Compute 6 * 7" }, { runId: "r", memory: undefined as never })
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toContain("runs nest at most 5 levels deep")
    expect(started).toBe(0)
    expect(MAX_AGENT_DEPTH).toBe(5)
  })
})
