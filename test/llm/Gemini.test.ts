import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as Fallback from "../../src/llm/Fallback.js"
import * as Gemini from "../../src/llm/Gemini.js"
import * as Offline from "../../src/llm/Offline.js"
import { costOf, DEFAULT_PRICES } from "../../src/llm/Pricing.js"
import { runOn } from "../support/engine.js"
import { type GeminiStub, startGeminiStub } from "../support/GeminiStub.js"
import { byPrompt, promptOfGemini } from "../support/stubAnswers.js"

/**
 * Gemini natively (#57 item 2): Aeon's Gemini provider through `@google/genai` against a local server of its API
 * (test/support/GeminiStub: the stream, usageMetadata as a running total, thoughts, errors). Usage is checked
 * against what the stub billed.
 */
let stub: GeminiStub
beforeAll(async () => {
  stub = await startGeminiStub()
})
afterAll(() => stub?.close())
beforeEach(() => {
  stub.requests.length = 0
  stub.bills.length = 0
  stub.replyWith((body) => ({ text: JSON.stringify(byPrompt[promptOfGemini(body) ?? ""] ?? {}) }))
})

const MODEL = "gemini-2.5-flash"
const gemini = (over: Partial<Gemini.GeminiOptions> = {}) =>
  Gemini.make({
    baseURL: stub.baseURL,
    apiKey: "k",
    model: MODEL,
    timeoutMs: 10_000,
    maxRetries: 2,
    retryBaseMs: 10,
    ...over
  })

const run = runOn

describe("Gemini through its own API", () => {
  it("a FULL run converges; JSON under responseJsonSchema; usage the stub's bill (the last chunk's totals)", async () => {
    const { result } = await run(gemini(), { task: "Compute 6 * 7", mode: "FULL" })
    expect(result.status).toBe("CONVERGED")
    const first = stub.requests[0]!
    expect(first.path).toContain(`${MODEL}:streamGenerateContent`)
    expect(first.body.generationConfig.responseMimeType).toBe("application/json")
    expect(first.body.generationConfig.responseJsonSchema).toBeDefined()
    expect(first.body.generationConfig.responseSchema).toBeUndefined()
    expect(first.body.systemInstruction).toBeDefined()
    const billedIn = stub.bills.reduce((n, b) => n + b.prompt, 0)
    const billedOut = stub.bills.reduce((n, b) => n + b.output + b.thoughts, 0)
    expect([result.usage.inputTokens, result.usage.outputTokens]).toEqual([billedIn, billedOut])
  })

  it("thoughts count as output and never reach the answer; cached content is priced as cached", async () => {
    stub.replyWith((body) => ({
      thoughts: "Thinking about six sevens carefully. ".repeat(10),
      cached: 20,
      text: JSON.stringify(byPrompt[promptOfGemini(body) ?? ""] ?? {})
    }))
    const { events, result } = await run(gemini({ thinkingTokens: 1024 }), { task: "Compute 6 * 7", mode: "FULL" })
    expect(result.status).toBe("CONVERGED")
    expect(JSON.stringify(result.finalAnswer)).not.toContain("six sevens")
    expect(stub.requests[0]!.body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 1024 })
    expect(result.usage.outputTokens).toBe(stub.bills.reduce((n, b) => n + b.output + b.thoughts, 0))
    const call = events.find((e) => e._tag === "LlmCalled")!
    expect(call.cachedTokens).toBe(20)
    const price = DEFAULT_PRICES[MODEL]!
    expect(call.costUsd).toBeCloseTo(costOf(price, call.inputTokens, call.outputTokens, 20), 8)
  })

  it("a bad key (400 API_KEY_INVALID) ends the run at once, in at most 2 requests, naming the key's settings", async () => {
    stub.replyWith(() => ({
      status: 400,
      message: "API key not valid. Please pass a valid API key.",
      reason: "API_KEY_INVALID"
    }))
    const { result } = await run(gemini(), { task: "Compute 6 * 7" })
    expect(result.status).toBe("FAILED")
    expect(stub.requests.length).toBeLessThanOrEqual(2)
    expect(JSON.stringify(result)).toContain("GEMINI_API_KEY")
  })

  it("overload (503) is retried, then the next model of the list answers", async () => {
    stub.replyWith(() => ({ status: 503, message: "The model is overloaded. Please try again later." }))
    const { events, result } = await run(Fallback.make([gemini(), Offline.service]), { task: "Compute 6 * 7" })
    expect(result.status).toBe("CONVERGED")
    expect(stub.requests.length).toBeGreaterThanOrEqual(3)
    expect(events.find((e) => e._tag === "LlmCalled")!.failedModels?.[0]).toMatch(/^google:gemini-2.5-flash: HTTP 503/)
  })

  it("an unknown model ends the run at once, naming it; a token cap is never crossed by what the stub bills", async () => {
    stub.replyWith(() => ({ status: 404, message: "models/gemini-nope is not found for API version v1beta" }))
    const { result } = await run(gemini({ model: "gemini-nope" }), { task: "Compute 6 * 7" })
    expect(result.status).toBe("FAILED")
    expect(stub.requests.length).toBeLessThanOrEqual(2)
    expect(JSON.stringify(result)).toContain("gemini-nope")
    stub.requests.length = 0
    stub.bills.length = 0
    stub.replyWith((body) => ({
      thoughts: "Weighing it. ".repeat(40),
      text: JSON.stringify(byPrompt[promptOfGemini(body) ?? ""] ?? {})
    }))
    const capped = await run(gemini(), {
      task: "Compute 6 * 7",
      mode: "FULL",
      thinkingTokens: 1024,
      budget: { maxTokens: 2500 }
    })
    const billed = stub.bills.reduce((n, b) => n + b.prompt + b.output + b.thoughts, 0)
    expect(billed).toBeLessThanOrEqual(2500)
    expect(capped.result.usage.inputTokens + capped.result.usage.outputTokens).toBeLessThanOrEqual(2500)
  })
})
