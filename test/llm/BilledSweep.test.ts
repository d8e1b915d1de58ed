import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { afterAll, beforeAll, describe, expect } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as OpenAi from "../../src/llm/OpenAi.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { runTask } from "../../src/run/Run.js"
import { type OpenAiStub, startOpenAiStub } from "../support/OpenAiStub.js"
import { convergingScript, verdict } from "../support/scripts.js"

/**
 * The sweep that found a cap crossed (#54 item 1): a provider that bills with another tokenizer than Aeon's (cl100k)
 * over the whole request as sent — the messages' JSON, the `response_format` with its schema — and cuts the answer
 * at `max_tokens`. Every cap from 1,200 to 3,400 in steps of 40 holds: the run's usage, which is the bill, never
 * passes it.
 */
let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
})
afterAll(() => stub.close())

const script: Record<string, unknown> = {
  ...convergingScript(),
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)]
}
const answerFor = (promptId: string) => {
  const entry = (script[promptId] as Array<{ output?: unknown }> | undefined)?.[0]
  return JSON.stringify(entry?.output ?? { actions: [] })
}

let billed = 0
const billAsSent = (body: any) => {
  const prompt = cl100k(JSON.stringify(body.messages)) +
    (body.response_format ? cl100k(JSON.stringify(body.response_format)) : 0) + 3
  const content = answerFor(body.response_format?.json_schema?.name ?? "")
  const written = cl100k(content)
  const cap = body.max_tokens ?? body.max_completion_tokens ?? Number.POSITIVE_INFINITY
  const completion = Math.min(written, cap)
  billed += prompt + completion
  return {
    content,
    finishReason: written > cap ? "length" : "stop",
    usage: { prompt_tokens: prompt, completion_tokens: completion }
  }
}

describe("maxTokens against a provider that bills the request as sent, with its own tokenizer (#54.1)", () => {
  it.live("every cap from 1,200 to 3,400 in steps of 40 holds", () =>
    Effect.gen(function*() {
      const crossed: Array<string> = []
      let stopped = 0
      for (let cap = 1_200; cap <= 3_400; cap += 40) {
        stub.replyWith(billAsSent)
        billed = 0
        const model = OpenAi.make({
          baseURL: stub.baseURL,
          apiKey: "k",
          model: "gpt-4o-mini",
          timeoutMs: 5_000,
          maxRetries: 0
        }, { inputPerMillion: 1, outputPerMillion: 1 })
        const result = yield* runTask({
          task: "Compute 6 * 7 and state the product",
          mode: "FULL",
          memory: false,
          budget: { maxTokens: cap, ttl: 6 }
        }).pipe(Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model))))
        expect(result.usage.inputTokens + result.usage.outputTokens).toBe(billed)
        if (billed > cap) crossed.push(`${cap}: billed ${billed}`)
        if (result.terminationReason === "budget_exhausted") stopped++
      }
      expect(crossed).toEqual([])
      // the sweep is about caps that stop the run: nearly every one of its 56 runs ends at its cap
      expect(stopped).toBeGreaterThanOrEqual(50)
    }), 300_000)
})
