import { describe, expect, it } from "@effect/vitest"
import { Chunk, ConfigProvider, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import * as CallLayers from "../../src/llm/CallLayers.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as OpenAi from "../../src/llm/OpenAi.js"
import { Contracts } from "../../src/prompts/PromptRegistry.js"
import { runTask } from "../../src/run/Run.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"

const synthesisInput = {
  request: "Compute 2 + 2",
  executionResults: [{ stepId: "s1", description: "Compute", status: "complete", stepOutput: "4" }],
  convergenceStatus: true,
  label: "converged",
  totalPasses: 1,
  ttlRemaining: 2
}
const goodAnswer = JSON.stringify({ answerText: "4", confidence: 0.9, usedStepIds: ["s1"] })

let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
})
afterAll(() => stub.close())

const model = (overrides: Partial<OpenAi.OpenAiOptions> = {}) =>
  stubModel(stub, overrides, { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 })

const fresh = (...replies: Parameters<OpenAiStub["reply"]>) => stub.reply(...replies)

describe("OpenAi layer against an OpenAI-compatible stub", () => {
  it.live("returns the decoded output with usage and cost, sending the output JSON Schema", () =>
    Effect.gen(function*() {
      fresh({ content: goodAnswer, usage: { prompt_tokens: 100, completion_tokens: 20 } })
      const r = yield* model().generate(Contracts.answerSynthesis, synthesisInput)
      expect(r.output.answerText).toBe("4")
      expect(r.usage.inputTokens).toBe(100)
      expect(r.usage.outputTokens).toBe(20)
      expect(r.usage.costUsd).toBeCloseTo(100 * 1 + 20 * 2)
      const sent = stub.requests.at(-1)
      expect(sent.response_format.type).toBe("json_schema")
      expect(sent.response_format.json_schema.schema.required).toContain("answerText")
      expect(sent.messages[1].content).toContain("Compute 2 + 2")
    }))

  it.live("retries a 429 honouring retry-after, then succeeds", () =>
    Effect.gen(function*() {
      fresh({ status: 429, headers: { "retry-after-ms": "30" } }, { content: goodAnswer })
      const started = Date.now()
      const r = yield* model().generate(Contracts.answerSynthesis, synthesisInput)
      expect(r.output.answerText).toBe("4")
      expect(stub.requests.length).toBe(2)
      expect(Date.now() - started).toBeGreaterThanOrEqual(25)
    }))

  it.live("retries 500 twice, then succeeds", () =>
    Effect.gen(function*() {
      fresh({ status: 500 }, { status: 502 }, { content: goodAnswer })
      const r = yield* model().generate(Contracts.answerSynthesis, synthesisInput)
      expect(r.output.usedStepIds).toEqual(["s1"])
      expect(stub.requests.length).toBe(3)
    }))

  it.live("retries a dropped connection (a reset), then succeeds", () =>
    Effect.gen(function*() {
      fresh({ reset: true }, { content: goodAnswer })
      const r = yield* model().generate(Contracts.answerSynthesis, synthesisInput)
      expect(r.output.answerText).toBe("4")
      expect(stub.requests.length).toBe(2)
    }))

  it.effect("the backoff runs on the Clock: with TestClock, no retry happens until the clock moves", () =>
    Effect.gen(function*() {
      fresh({ status: 500 }, { content: goodAnswer })
      const call = yield* Effect.fork(
        model({ retryBaseMs: 60_000, timeoutMs: 600_000 }).generate(Contracts.answerSynthesis, synthesisInput)
      )
      // the first request and its 500 come back: the call then waits on the clock for its backoff (about 60 s; its
      // timeout's wake-up is at 600 s) — awaited, not slept
      const backingOff = Effect.map(TestClock.sleeps(), Chunk.some((at) => at <= 120_000))
      while (!(yield* backingOff)) yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
      expect(stub.requests.length).toBe(1)
      yield* TestClock.adjust("2 minutes") // past the first backoff (60 s, jittered), within the call's timeout
      const r = yield* Fiber.join(call)
      expect(r.output.answerText).toBe("4")
      expect(stub.requests.length).toBe(2)
    }))

  it.live("every request counts against maxLlmCalls: a failing provider gets no more requests than the budget", () =>
    Effect.gen(function*() {
      fresh({ status: 500 })
      const engine = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model({ maxRetries: 3 })))
      const result = yield* runTask({
        task: "Compute 2 + 2",
        mode: "FULL",
        budget: { maxLlmCalls: 2, maxCostUsd: 1e9 }
      }).pipe(
        Effect.provide(engine)
      )
      expect(stub.requests.length).toBe(2) // without the budget: 4 requests (1 + 3 retries) for the first call alone
      expect(result.terminationReason).toBe("budget_exhausted")
      expect(result.usage.llmCalls).toBe(2)
    }))

  it.live("the output cap sent fits the token budget; usage reported over the budget ends the run and is recorded", () =>
    Effect.gen(function*() {
      const engine = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model()))
      // the provider over-reports: 4,000 output tokens against a cap of 3,000 in all
      fresh({ content: "{}", usage: { prompt_tokens: 100, completion_tokens: 4_000 } })
      const result = yield* runTask({
        task: "Compute 2 + 2",
        mode: "FULL",
        budget: { maxTokens: 3_000, maxCostUsd: 1e9 }
      }).pipe(Effect.provide(engine))
      expect(stub.requests.length).toBe(1)
      expect(stub.requests[0].max_tokens).toBeLessThanOrEqual(1_024)
      expect(result.terminationReason).toBe("budget_exhausted")
      expect(result.error).toContain("over the cap of 3000")
      expect(result.usage.inputTokens + result.usage.outputTokens).toBe(4_100) // the overage, as reported

      // a budget with less than the default cap left: the request asks for no more than fits
      fresh({ content: "{}", usage: { prompt_tokens: 100, completion_tokens: 10 } })
      yield* runTask({ task: "Compute 2 + 2", mode: "FULL", budget: { maxTokens: 700, maxCostUsd: 1e9 } }).pipe(
        Effect.provide(engine)
      )
      const first = stub.requests[0]
      expect(first.max_tokens).toBeLessThan(700)
      expect(first.max_tokens).toBeGreaterThanOrEqual(16)
    }))

  it.live("an answer cut at max_tokens is never taken: once more with twice the cap, else ModelTruncatedError (#14.4)", () =>
    Effect.gen(function*() {
      const cut = { content: goodAnswer, finishReason: "length" } // parses, but the provider says it was cut
      fresh(cut, { content: goodAnswer })
      const retried = yield* model().generate(Contracts.answerSynthesis, synthesisInput, { maxOutputTokens: 100 })
      expect(retried.output.answerText).toBe("4")
      expect(stub.requests.map((r) => r.max_tokens)).toEqual([100, 200])

      fresh(cut)
      const twice = yield* Effect.flip(
        model().generate(Contracts.answerSynthesis, synthesisInput, { maxOutputTokens: 100 })
      )
      expect(twice._tag).toBe("ModelTruncatedError")
      expect(twice.message).toContain("truncated")
      expect(stub.requests).toHaveLength(2)

      // no token budget left for a larger cap: no second request
      fresh(cut)
      const tight = yield* Effect.flip(
        model().wrapped(CallLayers.admission({
          admit: () => Effect.void,
          tokensLeft: Effect.succeed(0),
          requestsLeft: () => 10,
          onRequest: () => {}
        })).generate(Contracts.answerSynthesis, synthesisInput, { maxOutputTokens: 100 })
      )
      expect(tight._tag).toBe("ModelTruncatedError")
      expect(stub.requests).toHaveLength(1)
    }))

  it.live("a truncated reasoning answer never completes a step: the step fails with reason truncated (#14.4)", () =>
    Effect.gen(function*() {
      const engine = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model()))
      const reply = (o: object, finishReason = "stop") => ({ content: JSON.stringify(o), finishReason })
      const plan = {
        goal: "Compute 6 * 7",
        steps: [{
          stepId: "s1",
          description: "Compute 6 * 7 with the calculator",
          tool: "calculator",
          toolInput: { expression: "6 * 7" }
        }]
      }
      const profile = {
        reasoningDepth: 1,
        informationSufficiency: 0.9,
        expectedToolUsage: "minimal",
        outputBreadth: "narrow",
        confidenceRequirement: "medium",
        rawInference: "stub"
      }
      const step = { stepOutput: "6 * 7 = 4", clarityState: "CLEAR", handoffToNext: "4" }
      fresh(
        reply(profile),
        reply(plan),
        reply({ issues: [] }),
        reply(step, "length"),
        reply(step, "length"),
        reply({ issues: [] }),
        reply({
          converged: true,
          completenessScore: 1,
          coherenceScore: 1,
          consistencyAlignment: {},
          reasoning: "ok",
          confidence: 1
        }),
        reply({ answerText: "42", confidence: 0.9, usedStepIds: ["s1"] })
      )
      const result = yield* runTask({ task: "Compute 6 * 7", mode: "FULL", budget: { ttl: 1, maxCostUsd: 1e9 } }).pipe(
        Effect.provide(engine)
      )
      const s1 = result.plan!.steps.find((s) => s.stepId === "s1")!
      expect(s1.status).toBe("failed")
      expect(s1.error).toContain("truncated")
      expect(s1.stepOutput).not.toBe("6 * 7 = 4")
      expect(result.status).not.toBe("CONVERGED")
    }))

  it.live("a model with no price costs $0 and the result says so; AEON_PRICE_TABLE's price applies", () =>
    Effect.gen(function*() {
      fresh({ content: "{}", usage: { prompt_tokens: 1_000, completion_tokens: 100 } })
      const local = OpenAi.make({ baseURL: stub.baseURL, model: "llama-local", timeoutMs: 5_000, maxRetries: 0 })
      const engine = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, local))
      const result = yield* runTask({ task: "Compute 2 + 2", mode: "FULL" }).pipe(Effect.provide(engine))
      expect(result.usage.costUsd).toBe(0)
      expect(result.usage.inputTokens).toBeGreaterThan(0)
      expect(result.advisories[0]).toContain("model llama-local has no price (AEON_PRICE_TABLE can give it one)")
      const configured = (table: string) =>
        Effect.flatMap(LanguageModel, (m) => Effect.succeed(m)).pipe(
          Effect.provide(OpenAi.layerConfig),
          Effect.withConfigProvider(ConfigProvider.fromMap(
            new Map([["AEON_MODEL", "llama-local"], ["AEON_LLM_BASE_URL", stub.baseURL], ["AEON_PRICE_TABLE", table]])
          ))
        )
      expect((yield* configured("")).notice).toContain("has no price")
      const priced = yield* configured(JSON.stringify({ "llama-local": { inputPerMillion: 1, outputPerMillion: 2 } }))
      expect(priced.notice).toBeUndefined()
      expect(priced.price).toEqual({ inputPerMillion: 1, outputPerMillion: 2 })
    }))

  it.live("a refused key names the endpoint and the variables the key comes from", () =>
    Effect.gen(function*() {
      fresh({ status: 401 })
      const exit = yield* Effect.exit(model().generate(Contracts.answerSynthesis, synthesisInput))
      expect(JSON.stringify(exit)).toContain(`${stub.baseURL} refused the API key (AEON_LLM_API_KEY or OPENAI_API_KEY)`)
      expect(stub.requests.length).toBe(1) // not retried
    }))

  it.live("gives up after maxRetries with the HTTP error", () =>
    Effect.gen(function*() {
      fresh({ status: 503 })
      const exit = yield* Effect.exit(model({ maxRetries: 1 }).generate(Contracts.answerSynthesis, synthesisInput))
      expect(exit).toMatchObject({ _tag: "Failure" })
      expect(JSON.stringify(exit)).toContain("ModelHttpError")
      expect(stub.requests.length).toBe(2)
    }))

  it.live("a call slower than the timeout is a typed timeout error", () =>
    Effect.gen(function*() {
      fresh({ content: goodAnswer, delayMs: 1_000 })
      const error = yield* Effect.flip(model({ timeoutMs: 100 }).generate(Contracts.answerSynthesis, synthesisInput))
      expect(error._tag).toBe("ModelTimeoutError")
    }))

  it.live("malformed JSON surfaces as a decode error carrying the raw text", () =>
    Effect.gen(function*() {
      fresh({ content: "{\"answerText\": \"4\", " })
      const error = yield* Effect.flip(model().generate(Contracts.answerSynthesis, synthesisInput))
      expect(error._tag).toBe("ModelDecodeError")
      if (error._tag === "ModelDecodeError") expect(error.raw).toBe("{\"answerText\": \"4\", ")
    }))

  it.live("an answer that is JSON but breaks the output schema is a decode error, not a default", () =>
    Effect.gen(function*() {
      fresh({ content: JSON.stringify({ answerText: "4", confidence: "high" }) })
      const error = yield* Effect.flip(model().generate(Contracts.answerSynthesis, synthesisInput))
      expect(error._tag).toBe("ModelDecodeError")
      expect(error.message).toContain("confidence")
    }))

  it.live("falls back to JSON mode when the endpoint rejects json_schema", () =>
    Effect.gen(function*() {
      fresh({ status: 400, body: { error: { message: "response_format json_schema is not supported" } } }, {
        content: goodAnswer
      })
      const r = yield* model().generate(Contracts.answerSynthesis, synthesisInput)
      expect(r.output.answerText).toBe("4")
      expect(stub.requests.at(-1).response_format).toEqual({ type: "json_object" })
    }))

  it.live("sends max_completion_tokens instead of max_tokens once the endpoint refuses max_tokens, and keeps to it", () =>
    Effect.gen(function*() {
      fresh({
        status: 400,
        body: {
          error: {
            message:
              "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
          }
        }
      }, { content: goodAnswer })
      const m = model()
      const r = yield* m.generate(Contracts.answerSynthesis, synthesisInput)
      expect(r.output.answerText).toBe("4")
      expect(stub.requests[0].max_tokens).toBeGreaterThan(0)
      expect(stub.requests[1].max_tokens).toBeUndefined()
      expect(stub.requests[1].max_completion_tokens).toBe(stub.requests[0].max_tokens)
      yield* m.generate(Contracts.answerSynthesis, synthesisInput)
      expect(stub.requests).toHaveLength(3) // the next call goes straight to max_completion_tokens
      expect(stub.requests[2].max_completion_tokens).toBeGreaterThan(0)
      expect(stub.requests[2].max_tokens).toBeUndefined()
    }))

  it.live("interrupting the calling fiber closes the HTTP request", () =>
    Effect.gen(function*() {
      fresh({ content: goodAnswer, delayMs: 2_000 })
      const fiber = yield* Effect.fork(model().generate(Contracts.answerSynthesis, synthesisInput))
      yield* Effect.promise(() => stub.until(() => stub.requests.length > 0))
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      yield* Effect.promise(() => stub.until(() => stub.disconnects.length > 0))
      expect(stub.disconnects.length).toBe(1)
    }))
})
