import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import * as Anthropic from "../../src/llm/Anthropic.js"
import * as Fallback from "../../src/llm/Fallback.js"
import * as Offline from "../../src/llm/Offline.js"
import { costOf, DEFAULT_PRICES, findPrice } from "../../src/llm/Pricing.js"
import { type AnthropicStub, startAnthropicStub } from "../support/AnthropicStub.js"
import { runOn } from "../support/engine.js"
import { byPrompt, promptOfMessages } from "../support/stubAnswers.js"

/**
 * Claude natively (#57 item 1): Aeon's Anthropic provider through `@anthropic-ai/sdk` against a local server of the
 * Messages API (test/support/AnthropicStub: its stream, its usage fields, its caching, its errors). The usage and cost
 * of a run are checked against what the stub billed, by its own count.
 */
let stub: AnthropicStub
beforeAll(async () => {
  // a small model's minimum cacheable prefix, scaled down to Aeon's short prompts
  stub = await startAnthropicStub({ minCacheTokens: 40 })
})
afterAll(() => stub?.close())
beforeEach(() => {
  stub.requests.length = 0
  stub.bills.length = 0
  stub.replyWith((body) => ({ text: JSON.stringify(byPrompt[promptOfMessages(body) ?? ""] ?? {}) }))
})

const MODEL = Anthropic.DEFAULT_MODEL
const claude = (over: Partial<Anthropic.AnthropicOptions> = {}) =>
  Anthropic.make({
    baseURL: stub.baseURL,
    apiKey: "k",
    model: MODEL,
    timeoutMs: 10_000,
    maxRetries: 2,
    retryBaseMs: 10,
    ...over
  })

const run = runOn

const calledOf = (events: ReadonlyArray<any>) => events.filter((e) => e._tag === "LlmCalled")

describe("Claude through the Messages API", () => {
  it("a FULL run converges; each request cache-marked, its schema closed; usage and cost are the stub's bill", async () => {
    const { events, result } = await run(claude(), { task: "Compute 6 * 7", mode: "FULL" })
    expect(result.status).toBe("CONVERGED")
    const first = stub.requests[0]
    expect(first.stream).toBe(true)
    expect(first.system[0].cache_control).toEqual({ type: "ephemeral" })
    expect(first.messages[0].content[0].cache_control).toEqual({ type: "ephemeral" })
    // the breakpoint is the prompt's stable prefix, up to the task: the task and what follows it are never marked (a
    // whole prompt marked is written to the cache at 1.25x on every call, and never read again) (#69.13)
    const split = stub.requests.filter((r) => r.messages[0].content.length === 2)
    expect(split.length).toBeGreaterThan(0)
    for (const r of split) {
      const [prefix, rest] = r.messages[0].content
      expect(prefix.cache_control).toEqual({ type: "ephemeral" })
      expect(prefix.text).not.toContain("Compute 6 * 7")
      expect(rest.cache_control).toBeUndefined()
      expect(rest.text.startsWith("Compute 6 * 7")).toBe(true)
    }
    for (const r of stub.requests) {
      const marked = r.messages[0].content.filter((b: any) => b.cache_control !== undefined)
      for (const b of marked) expect(b.text).not.toContain("Compute 6 * 7")
    }
    expect(first.output_config.format.type).toBe("json_schema")
    expect(JSON.stringify(first.output_config.format.schema)).toContain(`"additionalProperties":false`)
    expect(first.thinking).toBeUndefined()
    // usage exactly as billed: input = after the cache + written + read; output from message_delta
    const billedIn = stub.bills.reduce((n, b) => n + b.input + b.cacheRead + b.cacheWrite, 0)
    const billedOut = stub.bills.reduce((n, b) => n + b.output, 0)
    expect([result.usage.inputTokens, result.usage.outputTokens]).toEqual([billedIn, billedOut])
    const price = DEFAULT_PRICES[MODEL]!
    const billedCost = stub.bills.reduce(
      (n, b) => n + costOf(price, b.input + b.cacheRead + b.cacheWrite, b.output, b.cacheRead, b.cacheWrite),
      0
    )
    expect(result.usage.costUsd).toBeCloseTo(billedCost, 6)
    // later calls read what earlier ones wrote, and cost less than their tokens at the input rate
    const calls = calledOf(events)
    expect(calls.some((c) => (c.cacheWriteTokens ?? 0) > 0)).toBe(true)
    const reading = calls.filter((c) => (c.cachedTokens ?? 0) > 0)
    expect(reading.length).toBeGreaterThan(0)
    for (const c of reading) expect(c.costUsd).toBeLessThan(costOf(price, c.inputTokens, c.outputTokens))
    expect(calls.every((c) => c.model === `anthropic:${MODEL}`)).toBe(true)
  })

  it("a refused key ends the run at once, in at most 2 requests, naming where the key comes from", async () => {
    stub.replyWith(() => ({ status: 401, errorType: "authentication_error", message: "invalid x-api-key" }))
    const { result } = await run(claude(), { task: "Compute 6 * 7" })
    expect(result.status).toBe("FAILED")
    expect(stub.requests.length).toBeLessThanOrEqual(2)
    expect(JSON.stringify(result)).toContain("ANTHROPIC_API_KEY")
  })

  it("an unknown model ends the run at once, naming the model", async () => {
    stub.replyWith(() => ({ status: 404, errorType: "not_found_error", message: "model: claude-nope" }))
    const { result } = await run(claude({ model: "claude-nope" }), { task: "Compute 6 * 7" })
    expect(result.status).toBe("FAILED")
    expect(stub.requests.length).toBeLessThanOrEqual(2)
    expect(JSON.stringify(result)).toContain("claude-nope")
  })

  it("overloaded (529) is retried, then the next model of the list answers", async () => {
    stub.replyWith(() => ({ status: 529, errorType: "overloaded_error", message: "Overloaded" }))
    const chain = Fallback.make([claude(), Offline.service])
    const { events, result } = await run(chain, { task: "Compute 6 * 7" })
    expect(result.status).toBe("CONVERGED")
    // retried (maxRetries 2) before the next model took over
    expect(stub.requests.length).toBeGreaterThanOrEqual(3)
    expect(calledOf(events)[0].failedModels?.[0]).toMatch(new RegExp(`^anthropic:${MODEL}: HTTP 529`))
  })

  it("thinking as an option of the run: each request's budget, the thinking recorded with its call", async () => {
    stub.replyWith((body) => ({
      thinking: "Six sevens are forty-two. ",
      text: JSON.stringify(byPrompt[promptOfMessages(body) ?? ""] ?? {})
    }))
    const { events, result } = await run(claude(), { task: "Compute 6 * 7", mode: "FULL", thinkingTokens: 1500 })
    expect(result.status).toBe("CONVERGED")
    for (const r of stub.requests) {
      expect(r.thinking).toEqual({ type: "enabled", budget_tokens: 1500 })
      expect(r.max_tokens).toBeGreaterThan(1500)
    }
    const calls = calledOf(events)
    expect(calls.every((c) => c.call?.thinking === "Six sevens are forty-two. ")).toBe(true)
    expect(JSON.stringify(result.finalAnswer)).not.toContain("Six sevens")
    // without it, no thinking is asked
    stub.requests.length = 0
    await run(claude(), { task: "Compute 6 * 7" })
    expect(stub.requests.every((r) => r.thinking === undefined)).toBe(true)
  })

  it("extended thinking: reserved in each call's cap (admitted), kept out of the answer, counted as output", async () => {
    stub.replyWith((body) => ({
      thinking: "Let me think about six sevens. ".repeat(20),
      text: JSON.stringify(byPrompt[promptOfMessages(body) ?? ""] ?? {})
    }))
    const { result } = await run(claude({ thinkingTokens: 2048 }), { task: "Compute 6 * 7", mode: "FULL" })
    expect(result.status).toBe("CONVERGED")
    for (const r of stub.requests) {
      expect(r.thinking).toEqual({ type: "enabled", budget_tokens: 2048 })
      expect(r.max_tokens).toBeGreaterThan(2048)
    }
    expect(JSON.stringify(result.finalAnswer)).not.toContain("six sevens")
    expect(result.usage.outputTokens).toBe(stub.bills.reduce((n, b) => n + b.output, 0))
    // a token cap too small for a call's thinking reserve is never crossed: the run stops at it
    stub.requests.length = 0
    stub.bills.length = 0
    const capped = await run(claude({ thinkingTokens: 2048 }), { task: "Compute 6 * 7", budget: { maxTokens: 3000 } })
    const billed = stub.bills.reduce((n, b) => n + b.input + b.cacheRead + b.cacheWrite + b.output, 0)
    expect(billed).toBeLessThanOrEqual(3000)
    expect(capped.result.usage.inputTokens + capped.result.usage.outputTokens).toBeLessThanOrEqual(3000)
  })

  it("429 waits what retry-after says, then the call goes on", async () => {
    let refused = 0
    stub.replyWith((body) =>
      refused++ === 0
        ? { status: 429, errorType: "rate_limit_error", message: "rate limited", headers: { "retry-after": "1" } }
        : { text: JSON.stringify(byPrompt[promptOfMessages(body) ?? ""] ?? {}) }
    )
    const started = Date.now()
    const { result } = await run(claude(), { task: "Compute 6 * 7" })
    expect(result.status).toBe("CONVERGED")
    // the backoff alone would have waited 10 ms: the server's second was honoured
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
  })
})

/**
 * A current Claude (#76 item 2): the default model is not one the installed SDK marks deprecated, every Claude and
 * Gemini model the docs name has a price (so a cost cap holds on it), and a deprecated model's end of life is said
 * once per process, not on every call.
 */
describe("Claude's models: current, priced, a deprecation said once", () => {
  const sdkDir = dirname(createRequire(import.meta.url).resolve("@anthropic-ai/sdk"))
  const { DEPRECATED_MODELS } = createRequire(import.meta.url)(join(sdkDir, "internal/data/deprecated-models.js"))

  it("the default model is not in the SDK's deprecated list, and it is priced", () => {
    expect(Object.keys(DEPRECATED_MODELS).length).toBeGreaterThan(0)
    expect(DEPRECATED_MODELS).not.toHaveProperty(Anthropic.DEFAULT_MODEL)
    expect(findPrice(DEFAULT_PRICES, Anthropic.DEFAULT_MODEL)).toBeDefined()
  })

  it("every Claude and Gemini model named in the README and docs/ has a price", () => {
    const files = ["README.md", ...readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => join("docs", f))]
    const named = new Set(
      files.flatMap((
        f
      ) => [
        ...readFileSync(f, "utf8").matchAll(/\b(claude-[a-z]+-[0-9][0-9a-z-]*|gemini-[0-9][0-9a-z.-]*[a-z0-9])\b/g)
      ])
        .map((m) => m[1] ?? "")
    )
    expect(named.size).toBeGreaterThan(3)
    expect([...named].filter((model) => findPrice(DEFAULT_PRICES, model) === undefined)).toEqual([])
  })

  it("a deprecated model: the SDK's end of life said once in two calls, not twice per call", async () => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined)
    try {
      await run(claude({ model: "claude-sonnet-4-5" }), { task: "Compute 6 * 7" })
      await run(claude({ model: "claude-sonnet-4-5" }), { task: "Compute 6 * 7" })
      expect(stub.requests.length).toBeGreaterThan(2)
      const lines = warned.mock.calls.map((c) => String(c[0]))
      expect(lines.filter((l) => l.includes("claude-sonnet-4-5"))).toEqual([
        expect.stringMatching(
          /^aeon: The model 'claude-sonnet-4-5' is deprecated and will reach end-of-life on November 30th, 2026/
        )
      ])
    } finally {
      warned.mockRestore()
    }
  })
})
