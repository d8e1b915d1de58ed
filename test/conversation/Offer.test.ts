import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import { prepare } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import { RunStore } from "../../src/store/RunStore.js"
import * as ToolRegistry from "../../src/tools/ToolRegistry.js"
import { freshDatabase } from "../support/database.js"

/**
 * A follow-up in a large catalog (#56 with #58): "And for Porto?" names no tool; the turn before it did. Past the
 * catalog's bound the offer is chosen by the task and the user's message before it. The offline stand-in answers.
 */
const tool = (name: string, description: string) =>
  ToolRegistry.tool({
    name,
    description,
    input: Schema.Struct({ city: Schema.String }),
    output: Schema.Struct({ text: Schema.String }),
    timeoutMs: 1_000,
    idempotent: true,
    run: ({ city }) => Effect.succeed({ text: `${name} for ${city}` })
  })
const catalog = [
  tool("geo_weather_forecast", "Gets the weather forecast for a city."),
  ...Array.from({ length: 60 }, (_, i) => tool(`ops_resource_${i}_sync`, `Synchronizes resource ${i} of the fleet.`))
]

const db = freshDatabase()
let runtime: ManagedRuntime.ManagedRuntime<any, any>
beforeAll(async () => {
  await Effect.runPromise(db.setup)
  runtime = ManagedRuntime.make(
    Layer.mergeAll(Aeon.layerWithOwnTools(catalog), Layer.succeed(LanguageModel, Offline.service)).pipe(
      Layer.provideMerge(Database.layer(db))
    )
  )
})
afterAll(() => runtime?.dispose())

const offered = (task: string, threadId?: string) =>
  runtime.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare({ task, memory: false, ...(threadId ? { threadId } : {}) })
      yield* p.execute
      const events = yield* (yield* RunStore).events(p.runId)
      return events.flatMap((e) => (e._tag === "ToolsOffered" ? [e.tools] : [])).at(0) ?? []
    })
  )

describe("the tool offer of a follow-up", () => {
  it("a follow-up that names no tool is offered the tool its conversation asked for", async () => {
    expect(await offered("What is the weather forecast for Lisbon?", "trip")).toContain("geo_weather_forecast")
    expect(await offered("And for Porto?", "trip")).toContain("geo_weather_forecast")
    // the same words on their own are not
    expect(await offered("And for Porto?")).not.toContain("geo_weather_forecast")
  })
})
