import { Effect, Layer, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { alternativeTo, isLastingToolError } from "../../src/kernel/ToolOutage.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import type * as ToolRegistry from "../../src/tools/ToolRegistry.js"
import { McpServerUnavailableError, tool } from "../../src/tools/ToolRegistry.js"
import { planOut } from "../support/scripts.js"

const forecast = tool({
  name: "weather.forecast",
  description: "The weather forecast for a city",
  input: Schema.Struct({ city: Schema.String }),
  output: Schema.Unknown,
  timeoutMs: 1_000,
  idempotent: true,
  run: () =>
    Effect.fail(
      new McpServerUnavailableError({ tool: "weather.forecast", server: "weather", message: "the server exited" })
    )
})
const otherForecast = tool({
  name: "meteo.outlook",
  description: "Weather outlook of the coming days for a place",
  input: Schema.Struct({ place: Schema.String }),
  output: Schema.Unknown,
  timeoutMs: 1_000,
  idempotent: true,
  run: ({ place }) => Effect.succeed({ place, outlook: "sunny" })
})

const run = (tools: ReadonlyArray<ToolRegistry.Tool>) => {
  const model = Scripted.make({
    [PromptId.PLAN_GENERATION_USER]: [planOut([
      { id: "s1", d: "Get the forecast for Lisbon", tool: "weather.forecast", input: { city: "Lisbon" } }
    ])]
  }, Offline.service)
  const layer = Layer.mergeAll(Aeon.layerWithTools(tools), Layer.succeed(LanguageModel, model.service))
  return Effect.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare({ task: "Get the weather forecast for Lisbon", mode: "FULL", budget: { ttl: 3 } })
      const result = yield* p.execute
      const log = yield* p.events.log
      const failedAt = log.findIndex((e) => e._tag === "StepFinished" && e.status === "failed")
      return { ...result, callsAfterFailure: log.slice(failedAt).filter((e) => e._tag === "LlmCalled").length }
    }).pipe(Effect.provide(layer))
  )
}

describe("a tool failure retrying cannot fix (#54.5)", () => {
  it("its server gone or its timeout run out is one; a refusal is not", () => {
    expect(isLastingToolError("McpServerUnavailable: weather.forecast: MCP server weather is not connected")).toBe(true)
    expect(isLastingToolError("tool weather.forecast timed out after 3000 ms")).toBe(true)
    expect(isLastingToolError("weather.forecast: unknown city 'Lisbn'")).toBe(false)
    expect(isLastingToolError("weather.forecast: tool weather.x timed out after 5 ms, said the upstream")).toBe(false)
  })

  it("another tool does its work when it shares what the step is about, on another server", () => {
    const step = { tool: "weather.forecast", description: "Get the forecast for Lisbon" }
    const infos = [forecast, otherForecast].map((t) => ({ name: t.name, description: t.description }))
    expect(alternativeTo(step, infos)?.name).toBe("meteo.outlook")
    // the gone server's other tools are gone too; an unrelated tool does not do the work
    expect(alternativeTo(step, [...infos.slice(0, 1), { name: "weather.alerts", description: "Weather alerts" }]))
      .toBeUndefined()
    expect(alternativeTo(step, [...infos.slice(0, 1), { name: "calculator", description: "Evaluates arithmetic" }]))
      .toBeUndefined()
  })

  it("with no other tool the run stops after the failed step, saying what failed; with one, it goes on", async () => {
    const alone = await run([forecast])
    expect(alone.status).toBe("FAILED")
    expect(alone.callsAfterFailure).toBe(0) // nothing after the step: no evaluation, refinement or synthesis
    expect(alone.finalAnswer?.answerText).toMatch(/^Not done: step s1 could not be done: McpServerUnavailable/)
    const routed = await run([forecast, otherForecast])
    expect(routed.callsAfterFailure).toBeGreaterThan(0) // the model is asked to judge and refine
    expect(routed.error ?? "").not.toMatch(/Retrying the same plan cannot fix this/)
  })
})

/**
 * A hanging tool with siblings on its server (#69 item 10): another tool could do its work, so the run went on — and
 * the next simple iteration and the escalation ran the same plan, the same hanging call, again (14 calls, 16 s). A
 * plan that repeats a call that timed out or lost its server is not executed again: the run ends, naming the tool.
 */
describe("a plan repeating a call that just timed out (#69.10)", () => {
  let hangs = 0
  const hang = tool({
    name: "bad.hang",
    description: "Looks up a value by key",
    input: Schema.Struct({ key: Schema.String }),
    output: Schema.Unknown,
    timeoutMs: 100,
    idempotent: true,
    run: () => Effect.sync(() => hangs++).pipe(Effect.zipRight(Effect.never))
  })
  const lookup = tool({
    name: "good.lookup",
    description: "Looks up a value by key, slowly",
    input: Schema.Struct({ key: Schema.String }),
    output: Schema.Unknown,
    timeoutMs: 1_000,
    idempotent: true,
    run: ({ key }) => Effect.succeed({ value: `value of ${key}` })
  })
  const runWith = (plans: ReadonlyArray<{ tool: string }>) => {
    const model = Scripted.make({
      [PromptId.PLAN_GENERATION_USER]: plans.map((p) =>
        planOut([{ id: "s1", d: "Look up the value of key alpha", tool: p.tool, input: { key: "alpha" } }])
      )
    }, Offline.service)
    const layer = Layer.mergeAll(Aeon.layerWithTools([hang, lookup]), Layer.succeed(LanguageModel, model.service))
    return Effect.runPromise(
      Effect.gen(function*() {
        const p = yield* prepare({ task: "Use bad.hang with key alpha", memory: false })
        const result = yield* p.execute
        const log = yield* p.events.log
        return { result, calls: log.filter((e) => e._tag === "LlmCalled").length }
      }).pipe(Effect.provide(layer))
    )
  }

  it("the same plan again: not executed; the run ends in at most 3 calls, naming the tool", async () => {
    hangs = 0
    const { calls, result } = await runWith([{ tool: "bad.hang" }])
    expect(hangs).toBe(1)
    expect(calls).toBeLessThanOrEqual(3)
    expect(result.status).toBe("FAILED")
    expect(result.error).toMatch(
      /would call bad\.hang again with the input that failed in pass \d+ \(tool bad\.hang timed out/
    )
  })

  it("a next plan that changes the failing call runs", async () => {
    hangs = 0
    const { result } = await runWith([{ tool: "bad.hang" }, { tool: "good.lookup" }])
    expect(hangs).toBe(1)
    expect(result.status).toBe("CONVERGED")
  })
})
