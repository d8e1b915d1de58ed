import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { catalogText, entryOf, offerFor } from "../../src/planning/ToolCatalog.js"
import { builtinTools as builtins } from "../../src/tools/ToolRegistry.js"

/** What a plan call is offered of the tools (#58): short entries, the whole catalog within the bound, else a choice. */
const server = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: `ops.resource_${i}_sync`,
    description: `Synchronizes resource ${i} of the fleet with its mirror. Long text after the first sentence.`,
    inputJsonSchema: { type: "object", properties: { batch: { type: "integer" } }, required: ["batch"] }
  }))
const weather = {
  name: "geo.weather_forecast",
  description: "Gets the weather forecast for a city.\nTemperatures in Celsius.",
  inputJsonSchema: {
    type: "object",
    properties: {
      city: {
        type: "string",
        description: "the city, as people write it, for example Lisbon or Porto or Faro or Braga"
      },
      days: { type: "integer" },
      units: { enum: ["metric", "imperial"] }
    },
    required: ["city"]
  }
}

describe("tool entries", () => {
  it("one line: the name, typed fields (optional marked, descriptions cut), the first sentence", () => {
    expect(entryOf(weather)).toBe(
      "geo.weather_forecast(city: string \"the city, as people write it, for example Lisbon or Porto o…\", days?: integer, " +
        "units?: \"metric\"|\"imperial\") — Gets the weather forecast for a city."
    )
    const typed = {
      name: "t.sum",
      description: "Adds.",
      input: Schema.Struct({ a: Schema.Number, b: Schema.optional(Schema.Number) })
    }
    expect(entryOf(typed)).toBe("t.sum(a: number, b?: number) — Adds.")
  })
})

describe("the offer", () => {
  it("within the bound every tool, in the registry's order", () => {
    const tools = [...builtins, weather]
    const offer = offerFor("Compute 6 * 7 and store it", tools)
    expect(offer).toMatchObject({ selected: false, noTool: false, total: tools.length })
    expect(offer.tools.map((t) => t.name)).toEqual(tools.map((t) => t.name))
  })

  it("past the bound, an arithmetic task is offered the calculator, though no word of it names it (#69.13)", () => {
    const tools = [...builtins, ...server(300)]
    const names = offerFor("What is (1234 + 4321) * 3 for batch 17?", tools).tools.map((t) => t.name)
    expect(offerFor("What is (1234 + 4321) * 3 for batch 17?", tools).selected).toBe(true)
    expect(names).toContain("calculator")
    // a task with no expression is not offered it for its numbers alone
    expect(offerFor("Synchronize resource 17 of the fleet, batch 3", tools).tools.map((t) => t.name)).not.toContain(
      "calculator"
    )
  })

  it("past the bound: the tools the task's words rank, and the ones it names, in the registry's order", () => {
    const tools = [...server(200), weather, ...server(200).map((t) => ({ ...t, name: `${t.name}_b` }))]
    const offer = offerFor("Get the weather forecast for Lisbon, then run ops.resource_7_sync_b for batch 3", tools)
    expect(offer.selected).toBe(true)
    const names = offer.tools.map((t) => t.name)
    expect(names).toContain("geo.weather_forecast")
    expect(names).toContain("ops.resource_7_sync_b")
    expect(names.length).toBeLessThanOrEqual(10)
    expect(names).toEqual(tools.map((t) => t.name).filter((n) => names.includes(n)))
    // deterministic: the same task and tools (another list, so not the remembered offer) give the same offer
    expect(offerFor("Get the weather forecast for Lisbon, then run ops.resource_7_sync_b for batch 3", [...tools]))
      .toEqual(offer)
    expect(catalogText(offer.tools).length).toBeLessThan(2_000)
  })

  it("with Aeon's own tools, a task needing none is offered none; a number, a tool's words or its kind keep them", () => {
    expect(offerFor("What is the capital of France?", builtins)).toMatchObject({ tools: [], noTool: true })
    expect(offerFor("Explain in two sentences why the sky is blue.", builtins).noTool).toBe(true)
    expect(offerFor("What is 12 squared?", builtins).noTool).toBe(false)
    expect(offerFor("Remember my favourite colour", builtins).noTool).toBe(false)
    expect(offerFor("What's the date today?", builtins).noTool).toBe(false)
  })

  it("with other tools the catalog stays: a task's words do not always name what it needs", () => {
    expect(offerFor("What is the capital of France?", [...builtins, weather]).noTool).toBe(false)
    expect(offerFor("What is the capital of France?", [...builtins, weather]).tools).toHaveLength(builtins.length + 1)
  })
})
