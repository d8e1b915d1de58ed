import { Effect, Layer, ManagedRuntime } from "effect"
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as LM from "../../src/llm/LanguageModel.js"
import { FREE } from "../../src/llm/Pricing.js"
import * as Replaying from "../../src/run/Replaying.js"
import { prepare } from "../../src/run/Run.js"
import { RunStore } from "../../src/store/RunStore.js"
import { storeLayer } from "../support/database.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * Large tool catalogs (#58): a generated MCP server (the official SDK, stdio) with 10 and with 400 tools across
 * domains, the run through the real OpenAI provider against a stub that plays a model using only what it is shown:
 * the weather tool when its entry is in the plan prompt, else a name it guesses. The plan request stays bounded as the
 * catalog grows, the right tool is offered and used, a tool the task names is offered, a plan naming a tool it was
 * not shown recovers in one more call, and a replay offers the same tools.
 */
const server = fileURLToPath(new URL("../support/mcp-servers/catalog.mjs", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "aeon-catalog-"))
const configOf = (size: number) => {
  const file = join(dir, `catalog-${size}.json`)
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { catalog: { command: process.execPath, args: [server], env: { CATALOG_SIZE: String(size) } } }
    })
  )
  return file
}

const WEATHER = "catalog.weather_forecast"
let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => {
    const prompt = promptOfRequest(body) ?? ""
    const user: string = body.messages[1]?.content ?? ""
    if (prompt === "plan_generation_user") {
      const shown = user.includes(`${WEATHER}(`)
      return {
        content: JSON.stringify({
          steps: [{
            stepId: "s1",
            description: "Get the weather forecast for Lisbon",
            tool: shown ? WEATHER : "weather.get_forecast",
            toolInput: { city: "Lisbon" }
          }]
        })
      }
    }
    if (prompt === "supervisor_repair_missingtool_user") {
      return {
        content: JSON.stringify({
          replacementTool: user.includes(WEATHER) ? WEATHER : null,
          justification: "the forecast tool"
        })
      }
    }
    if (prompt === "reasoning_step_user") {
      return {
        content: JSON.stringify({
          stepOutput: "The weather forecast for Lisbon: sunny, 24 °C",
          clarityState: "CLEAR",
          handoffToNext: "sunny"
        })
      }
    }
    if (prompt === "answer_synthesis_user") {
      return {
        content: JSON.stringify({
          answerText: "The weather forecast for Lisbon: sunny, 24 °C",
          confidence: 0.9,
          usedStepIds: ["s1"]
        })
      }
    }
    if (prompt === "recursive_refinement_user") return { content: JSON.stringify({ actions: [] }) }
    return { content: JSON.stringify(byPrompt[prompt] ?? {}) }
  })
})
afterAll(() => stub.close())

const runtimes = new Map<number, ManagedRuntime.ManagedRuntime<any, any>>()
const runtimeOf = (size: number) => {
  let r = runtimes.get(size)
  if (!r) {
    r = ManagedRuntime.make(
      Layer.mergeAll(Aeon.layerWithTools([], configOf(size)), Layer.succeed(LanguageModel, stubModel(stub))).pipe(
        Layer.provideMerge(storeLayer())
      )
    )
    runtimes.set(size, r)
  }
  return r
}
afterAll(() => Promise.all([...runtimes.values()].map((r) => r.dispose())))

const run = async (size: number, task: string, mode: "AUTO" | "FULL" = "AUTO") => {
  stub.requests.length = 0
  const { events, result } = await runtimeOf(size).runPromise(
    Effect.gen(function*() {
      const p = yield* prepare({ task, memory: false, mode })
      const result = yield* p.execute
      return { result, events: yield* (yield* RunStore).events(p.runId) }
    }) as Effect.Effect<{ result: any; events: ReadonlyArray<RunEvent> }>
  )
  const plans = stub.requests.filter((b) => promptOfRequest(b) === "plan_generation_user")
  const billed = (b: any) => cl100k(JSON.stringify(b.messages)) + cl100k(JSON.stringify(b.response_format ?? {}))
  const offered = events.find((e) => e._tag === "ToolsOffered") as Extract<RunEvent, { _tag: "ToolsOffered" }>
  return { result, events, planTokens: plans.map(billed), offered, requests: [...stub.requests] }
}

const TASK = "Use the weather forecast tool to get the forecast for Lisbon"

describe("a large MCP catalog: the plan prompt carries the tools the task needs (#58)", () => {
  it(
    "400 tools: the plan request is at most 2× the 10-tool one; the weather tool is offered, used, the run converges",
    async () => {
      const small = await run(10, TASK)
      const large = await run(400, TASK)
      expect(small.result.status, JSON.stringify(small.result.history.passes.map((p: any) => p.evaluationResults)))
        .toBe("CONVERGED")
      expect(large.result.status).toBe("CONVERGED")
      expect(large.planTokens[0]!).toBeLessThanOrEqual(2 * small.planTokens[0]!)
      expect(large.offered).toMatchObject({ total: 400 + 4, selected: true })
      expect(large.offered.tools).toContain(WEATHER)
      expect(large.offered.tools.length).toBeLessThanOrEqual(10)
      const tools = large.events.flatMap((e) => (e._tag === "ToolInvoked" ? [e.tool] : []))
      expect(tools).toEqual([WEATHER])
      // within the bound every tool is listed, and nothing is recorded for it
      expect(small.offered).toBeUndefined()
    },
    120_000
  )

  it("FULL: the plan's review and assessment are shown the offer by name, not the catalog's 406 names", async () => {
    const { requests, result } = await run(400, TASK, "FULL")
    expect(result.status).toBe("CONVERGED")
    const reviews = requests.filter((b) => promptOfRequest(b) === "validation_semantic_user")
    expect(reviews.length).toBeGreaterThan(0)
    for (const b of reviews) expect(cl100k(JSON.stringify(b.messages))).toBeLessThan(1_500)
  }, 120_000)

  it("a tool the task names is offered, whatever its words rank", async () => {
    const { offered } = await run(400, `Check the weather, then call catalog.billing_archive_coupon for order 7`)
    expect(offered.tools).toContain("catalog.billing_archive_coupon")
    expect(offered.tools).toContain(WEATHER)
  }, 120_000)

  it(
    "a plan naming a tool it was not shown recovers in one more call (the missing tool's repair, ranked)",
    async () => {
      const { events, offered, requests, result } = await run(400, "How hot will Lisbon be at 15:00?")
      expect(offered.tools).not.toContain(WEATHER)
      expect(result.status).toBe("CONVERGED")
      const repairs = requests.filter((b) => promptOfRequest(b) === "supervisor_repair_missingtool_user")
      expect(repairs).toHaveLength(1)
      // the repair is shown the tools the step's words rank, not 400 names
      expect(cl100k(repairs[0].messages[1].content)).toBeLessThan(400)
      expect(events.flatMap((e) => (e._tag === "ToolInvoked" ? [e.tool] : []))).toEqual([WEATHER])
    },
    120_000
  )

  it("a replay offers the same tools and asks no model", async () => {
    const source = await run(400, TASK)
    const runId = source.result.runId as string
    const forbidden = LM.make("live", FREE, (r) => Effect.dieMessage(`the live model was asked ${r.promptId}`))
    const replayed = await runtimeOf(400).runPromise(
      Replaying.replay(runId).pipe(Effect.provideService(LanguageModel, forbidden)) as Effect.Effect<any>
    )
    expect(replayed.divergence).toBeUndefined()
    // the replay's events are compared with the source's, ToolsOffered among them: no divergence, the same offer
    expect(source.offered.tools).toContain(WEATHER)
    expect(replayed.result.status).toBe("CONVERGED")
  }, 120_000)
})
