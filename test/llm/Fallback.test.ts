import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import * as Fallback from "../../src/llm/Fallback.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as ModelLayer from "../../src/llm/ModelLayer.js"
import { prepare } from "../../src/run/Run.js"
import { type OpenAiStub, startOpenAiStub } from "../support/OpenAiStub.js"
import { byPrompt as stubAnswers } from "../support/stubAnswers.js"

let down: OpenAiStub
let up: OpenAiStub
beforeAll(async () => {
  ;[down, up] = await Promise.all([startOpenAiStub(), startOpenAiStub()])
})
afterAll(() => Promise.all([down.close(), up.close()]))

/** The model of AEON_MODELS as the server and the CLI build it, from these settings. */
const configured = (settings: Record<string, string>) =>
  Effect.flatMap(LanguageModel, Effect.succeed).pipe(
    Effect.provide(ModelLayer.layerConfig),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings))))
  )

const byPrompt = stubAnswers

const runWith = (model: LanguageModel["Type"], budget: object = {}) =>
  Effect.gen(function*() {
    const prepared = yield* prepare({ task: "Compute 6 * 7", mode: "FULL", budget: { ttl: 1, ...budget } })
    const result = yield* prepared.execute
    return { result, log: yield* prepared.events.log }
  }).pipe(Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model))))

describe("fallback across providers: AEON_MODELS (#33 item 4)", () => {
  it("reads a list of models: provider, an optional base URL, a model that may hold colons, or offline", () => {
    expect(Fallback.parseModels("openai:gpt-4o-mini, openai@http://127.0.0.1:11434/v1:qwen2.5:7b,offline")).toEqual(
      Either.right([
        { provider: "openai", baseURL: undefined, model: "gpt-4o-mini" },
        { provider: "openai", baseURL: "http://127.0.0.1:11434/v1", model: "qwen2.5:7b" },
        { provider: "offline", model: "offline" }
      ])
    )
    // the native providers are entries too (#57)
    expect(Fallback.parseModels("anthropic:claude-sonnet-4-5,google@http://127.0.0.1:9:gemini-2.5-flash")).toEqual(
      Either.right([
        { provider: "anthropic", model: "claude-sonnet-4-5" },
        { provider: "google", baseURL: "http://127.0.0.1:9", model: "gemini-2.5-flash" }
      ])
    )
    expect(Either.getLeft(Fallback.parseModels("mistral:large"))).toEqual(
      expect.objectContaining({ _tag: "Some", value: expect.stringContaining("\"mistral:large\" is not a model") })
    )
    expect(Either.isLeft(Fallback.parseModels(" , "))).toBe(true)
  })

  it.live("a bad AEON_MODELS is a start-up error naming it", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(configured({ AEON_MODELS: "openai" }))
      expect(String(exit._tag === "Failure" && exit.cause)).toContain("AEON_MODELS \"openai\" is not a model")
    }))

  it.live("first endpoint answers 500s, second answers: the run converges, each call names the model that answered and the one that failed", () =>
    Effect.gen(function*() {
      down.reply({ status: 500 })
      up.replyWith((body) => ({ content: JSON.stringify(byPrompt[body.response_format.json_schema.name] ?? {}) }))
      const model = yield* configured({
        AEON_MODELS: `openai@${down.baseURL}:gpt-4o-mini,openai@${up.baseURL}:gpt-4o`,
        AEON_LLM_MAX_RETRIES: "1",
        AEON_LLM_API_KEY: "k"
      })
      const { log, result } = yield* runWith(model)
      expect(result.status).toBe("CONVERGED")
      const calls = log.filter((e) => e._tag === "LlmCalled")
      expect(calls.length).toBeGreaterThan(3)
      for (const call of calls) {
        expect(call).toMatchObject({
          model: "openai:gpt-4o",
          failedModels: ["openai:gpt-4o-mini: HTTP 500"],
          requests: 3 // two to the first (a retry), one to the second: all counted
        })
      }
      expect(result.usage.llmCalls).toBe(3 * calls.length)
      expect(down.requests.length).toBe(2 * calls.length)
    }))

  it.live("an unreachable first endpoint falls over to the second", () =>
    Effect.gen(function*() {
      up.replyWith((body) => ({ content: JSON.stringify(byPrompt[body.response_format.json_schema.name] ?? {}) }))
      const model = yield* configured({
        AEON_MODELS: `openai@http://127.0.0.1:9/v1:gpt-4o-mini,openai@${up.baseURL}:gpt-4o`,
        AEON_LLM_MAX_RETRIES: "0"
      })
      const { log, result } = yield* runWith(model)
      expect(result.status).toBe("CONVERGED")
      const first = log.find((e) => e._tag === "LlmCalled")
      expect(first).toMatchObject({
        model: "openai:gpt-4o",
        failedModels: ["openai:gpt-4o-mini: ModelUnavailableError"]
      })
    }))

  it.live("with maxLlmCalls 2 and both failing, exactly 2 requests are sent", () =>
    Effect.gen(function*() {
      down.reply({ status: 503 })
      up.reply({ status: 500 })
      const model = yield* configured({
        AEON_MODELS: `openai@${down.baseURL}:gpt-4o-mini,openai@${up.baseURL}:gpt-4o`,
        AEON_LLM_MAX_RETRIES: "3"
      })
      const { result } = yield* runWith(model, { maxLlmCalls: 2 })
      expect(result.status).not.toBe("CONVERGED")
      expect(down.requests.length + up.requests.length).toBe(2)
      expect(result.usage.llmCalls).toBe(2)
    }))

  it.live("a refusal that is not the provider's (400) does not fall over: the next model is not asked", () =>
    Effect.gen(function*() {
      down.reply({ status: 400 })
      up.reply({ content: "{}" })
      const model = Fallback.make([
        yield* configured({ AEON_MODELS: `openai@${down.baseURL}:gpt-4o-mini` }),
        yield* configured({ AEON_MODELS: `openai@${up.baseURL}:gpt-4o` })
      ])
      yield* runWith(model)
      expect(up.requests.length).toBe(0)
    }))

  it.live("the library's Fallback.layer: an unreachable endpoint, then the offline stand-in answers (and says so)", () =>
    Effect.gen(function*() {
      const model = yield* Effect.flatMap(LanguageModel, Effect.succeed).pipe(
        Effect.provide(Fallback.layer(["openai@http://127.0.0.1:9/v1:gpt-4o-mini", "offline"])),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["AEON_LLM_MAX_RETRIES", "0"]])))
      )
      expect(model.label).toBe("openai:gpt-4o-mini, offline")
      const { log, result } = yield* runWith(model)
      expect(result.status).toBe("CONVERGED")
      expect(result.finalAnswer?.answerText).toContain("42")
      expect(log.find((e) => e._tag === "LlmCalled")).toMatchObject({
        model: "offline",
        failedModels: ["openai:gpt-4o-mini: ModelUnavailableError"]
      })
    }))
})
