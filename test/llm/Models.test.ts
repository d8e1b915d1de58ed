import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Layer, TestClock } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as ModelLayer from "../../src/llm/ModelLayer.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { Contracts } from "../../src/prompts/PromptRegistry.js"

const profileInput = { request: "Compute (17 + 25) * 3 and explain the result" }
const withEnv = (env: Record<string, string>) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("Scripted model", () => {
  it.effect("answers in order, the last repeating; raw text and errors are delivered as such", () =>
    Effect.gen(function*() {
      const { service, calls } = Scripted.make({
        [PromptId.ANSWER_SYNTHESIS_USER]: [
          { output: { answerText: "one", confidence: 1, usedStepIds: [] } },
          { raw: "{not json" },
          { error: { status: 429 } },
          { output: { answerText: "last", confidence: 1, usedStepIds: [] } }
        ]
      })
      const input = {
        request: "r",
        executionResults: [],
        convergenceStatus: true,
        label: "converged",
        totalPasses: 1,
        ttlRemaining: 0
      }
      expect((yield* service.generate(Contracts.answerSynthesis, input)).output.answerText).toBe("one")
      expect((yield* Effect.flip(service.generate(Contracts.answerSynthesis, input)))._tag).toBe("ModelDecodeError")
      const http = yield* Effect.flip(service.generate(Contracts.answerSynthesis, input))
      expect(http).toMatchObject({ _tag: "ModelHttpError", status: 429 })
      expect((yield* service.generate(Contracts.answerSynthesis, input)).output.answerText).toBe("last")
      expect((yield* service.generate(Contracts.answerSynthesis, input)).output.answerText).toBe("last")
      expect(calls).toHaveLength(5)
      expect(calls[0]!.input).toMatchObject({ request: "r" })
    }))

  it.effect("delayMs holds the answer back on the clock", () =>
    Effect.gen(function*() {
      const { service } = Scripted.make({
        [PromptId.TASKPROFILE_INFERENCE_USER]: [{
          delayMs: 5_000,
          output: {
            reasoningDepth: 2,
            informationSufficiency: 1,
            expectedToolUsage: "none",
            outputBreadth: "narrow",
            confidenceRequirement: "low",
            rawInference: "r"
          }
        }]
      })
      const fiber = yield* Effect.fork(service.generate(Contracts.profileInference, profileInput))
      yield* TestClock.adjust("4 seconds")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(fiber)).output.reasoningDepth).toBe(2)
    }))

  it.effect("a prompt with no script is a clear error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Scripted.make({}).service.generate(Contracts.profileInference, profileInput))
      expect(error.message).toContain("no response for prompt taskprofile_inference_user")
    }))

  it.effect("loads from a JSON file chosen by AEON_MODEL_PROVIDER=scripted and AEON_SCRIPT", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "aeon-script-"))
      const path = join(dir, "script.json")
      writeFileSync(
        path,
        JSON.stringify({
          taskprofile_inference_user: [{
            output: {
              reasoningDepth: 4,
              informationSufficiency: 0.2,
              expectedToolUsage: "extensive",
              outputBreadth: "broad",
              confidenceRequirement: "high",
              rawInference: "scripted"
            }
          }]
        })
      )
      const model = yield* LanguageModel.pipe(
        Effect.provide(
          ModelLayer.layerConfig.pipe(Layer.provide(withEnv({ AEON_MODEL_PROVIDER: "scripted", AEON_SCRIPT: path })))
        )
      )
      expect(model.label).toBe("scripted")
      expect((yield* model.generate(Contracts.profileInference, profileInput)).output.reasoningDepth).toBe(4)
      writeFileSync(path, JSON.stringify({ plan_generation_usr: [] }))
      const bad = yield* Effect.flip(
        LanguageModel.pipe(
          Effect.provide(
            ModelLayer.layerConfig.pipe(Layer.provide(withEnv({ AEON_MODEL_PROVIDER: "scripted", AEON_SCRIPT: path })))
          )
        )
      )
      expect(bad.message).toContain("unknown prompt \"plan_generation_usr\"")
    }))
})

describe("provider selection", () => {
  const labelWith = (env: Record<string, string>) =>
    LanguageModel.pipe(
      Effect.map((m) => m.label),
      Effect.provide(ModelLayer.layerConfig.pipe(Layer.provide(withEnv(env))))
    )
  it.effect("AEON_PRICE_TABLE prices a model; a malformed table is a configuration error naming it", () =>
    Effect.gen(function*() {
      const model = LanguageModel.pipe(
        Effect.provide(
          ModelLayer.layerConfig.pipe(
            Layer.provide(
              withEnv({
                AEON_LLM_BASE_URL: "http://127.0.0.1:1/v1",
                AEON_MODEL: "local",
                AEON_PRICE_TABLE: "{\"local\": {\"inputPerMillion\": 3, \"outputPerMillion\": 4}}"
              })
            )
          )
        )
      )
      expect((yield* model).price).toEqual({ inputPerMillion: 3, outputPerMillion: 4 })
      const bad = yield* Effect.flip(
        LanguageModel.pipe(
          Effect.provide(
            ModelLayer.layerConfig.pipe(
              Layer.provide(withEnv({ AEON_LLM_BASE_URL: "http://127.0.0.1:1/v1", AEON_PRICE_TABLE: "{not json" }))
            )
          )
        )
      )
      expect(String(bad)).toContain("AEON_PRICE_TABLE")
    }))

  it.effect("offline when nothing is configured, openai when a base URL or key is set", () =>
    Effect.gen(function*() {
      expect(yield* labelWith({})).toBe("offline")
      expect(yield* labelWith({ AEON_LLM_BASE_URL: "http://127.0.0.1:1/v1", AEON_MODEL: "llama3" })).toBe(
        "openai:llama3"
      )
      expect(yield* labelWith({ AEON_LLM_API_KEY: "sk-x" })).toBe("openai:gpt-4o-mini")
      expect(yield* labelWith({ AEON_LLM_API_KEY: "sk-x", AEON_MODEL_PROVIDER: "offline" })).toBe("offline")
    }))
})

describe("Offline model", () => {
  it.effect("answers every user contract with a valid object derived from its input", () =>
    Effect.gen(function*() {
      const m = Offline.service
      const plan = (yield* m.generate(Contracts.planGeneration, {
        request: "Compute (17 + 25) * 3 and explain the result",
        tools: [{ name: "calculator", description: "" }]
      })).output
      expect(plan.steps[0]).toMatchObject({ tool: "calculator", toolInput: { expression: "(17 + 25) * 3" } })
      expect(plan.steps[1]!.description).toBe("Explain the result")
      const profile =
        (yield* m.generate(Contracts.profileInference, { request: "Do something with stuff, etc." })).output
      expect(profile.informationSufficiency).toBeLessThan(1)
      expect(profile.rawInference).toContain("offline")
      const answer = (yield* m.generate(Contracts.answerSynthesis, {
        request: "r",
        executionResults: [{ stepId: "s1", description: "d", status: "complete", stepOutput: "42" }],
        convergenceStatus: true,
        label: "converged",
        totalPasses: 1,
        ttlRemaining: 0
      })).output
      // the stand-in is labeled where its answer is shown (by the run's model), and in its notes: not in the text
      expect(answer.answerText).toBe("42")
      expect(answer.notes).toContain("offline rule-based model")
      expect(answer.usedStepIds).toEqual(["s1"])
    }))
})
