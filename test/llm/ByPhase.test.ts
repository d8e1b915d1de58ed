import { ConfigProvider, Effect, Layer } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as ByPhase from "../../src/llm/ByPhase.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import type * as LM from "../../src/llm/LanguageModel.js"
import * as ModelLayer from "../../src/llm/ModelLayer.js"
import { costOf, DEFAULT_PRICES } from "../../src/llm/Pricing.js"
import { runOn } from "../support/engine.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * A model per phase (#57 item 4): a strong model plans, a small one reviews, steps and answers; each call made,
 * priced and recorded as its model's, the forecast priced per model. One stub endpoint serves both model names.
 */
let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
})
afterAll(() => stub?.close())
beforeEach(() => {
  stub.requests.length = 0
  stub.replyWith((body) => ({ content: JSON.stringify(byPrompt[promptOfRequest(body) ?? ""] ?? {}), report: "billed" }))
})

const run = runOn

describe("a model per phase", () => {
  it("plans go to the plan's model, the rest to the run's; each call priced and recorded as its model's", async () => {
    const strong = stubModel(stub, { model: "gpt-4.1" })
    const small = stubModel(stub, { model: "gpt-4o-mini" })
    const { events, result } = await run(ByPhase.make(small, { plan: strong }), {
      task: "Compute 6 * 7",
      mode: "FULL",
      approvePlan: false
    })
    expect(result.status).toBe("CONVERGED")
    for (const body of stub.requests) {
      expect(body.model).toBe(promptOfRequest(body) === "plan_generation_user" ? "gpt-4.1" : "gpt-4o-mini")
    }
    const calls = events.filter((e) => e._tag === "LlmCalled")
    const plan = calls.find((c) => c.promptId === "plan_generation_user")!
    expect(plan.model).toBe("openai:gpt-4.1")
    expect(plan.costUsd).toBeCloseTo(costOf(DEFAULT_PRICES["gpt-4.1"]!, plan.inputTokens, plan.outputTokens), 8)
    const review = calls.find((c) => c.promptId === "validation_semantic_user")!
    expect(review.model).toBe("openai:gpt-4o-mini")
    expect(review.costUsd).toBeCloseTo(
      costOf(DEFAULT_PRICES["gpt-4o-mini"]!, review.inputTokens, review.outputTokens),
      8
    )
    // the forecast prices each call at its phase's model: the answer's model dearer, the forecast dearer
    const forecastOf = async (model: LM.Service) => {
      const r = await run(model, { task: "Compute 6 * 7", mode: "FULL", dryRun: true })
      return r.events.find((e) => e._tag === "ForecastMade")!.forecast.expected.costUsd
    }
    const cheap = await forecastOf(small)
    const dear = await forecastOf(ByPhase.make(small, { step: strong, review: strong, answer: strong }))
    expect(dear).toBeGreaterThan(cheap * 5)
  })

  it("AEON_MODELS_BY_PHASE: phase=models lists, each a fallback list; a bad one refused, named", async () => {
    const env = (vars: Record<string, string>) =>
      Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(vars))))
    const model = await Effect.runPromise(
      LanguageModel.pipe(Effect.provide(ModelLayer.layerConfig.pipe(Layer.provide(env({
        AEON_MODEL_PROVIDER: "offline",
        AEON_MODELS_BY_PHASE: `plan=openai@${stub.baseURL}:gpt-4.1,offline;review=openai@${stub.baseURL}:gpt-4o-mini`
      })))))
    )
    expect(model.label).toBe(
      `plan=openai:gpt-4.1, offline; review=openai:gpt-4o-mini; else offline`
    )
    const bad = await Effect.runPromise(
      Effect.flip(LanguageModel.pipe(Effect.provide(ModelLayer.layerConfig.pipe(Layer.provide(env({
        AEON_MODEL_PROVIDER: "offline",
        AEON_MODELS_BY_PHASE: "planning=offline"
      }))))))
    )
    expect(String(bad)).toContain("AEON_MODELS_BY_PHASE")
    expect(String(bad)).toContain("phases: plan, step, review, answer")
  })
})
