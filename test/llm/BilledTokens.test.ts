import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { afterAll, beforeAll, describe, expect } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as OpenAi from "../../src/llm/OpenAi.js"
import { countTokens } from "../../src/llm/Tokenizer.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { runTask } from "../../src/run/Run.js"
import { type OpenAiStub, startOpenAiStub } from "../support/OpenAiStub.js"
import { convergingScript, verdict } from "../support/scripts.js"

/**
 * A provider bills what it is sent, not what Aeon wrote: every message's tokens with the chat format's framing (3 a
 * message, 3 priming the reply, as OpenAI counts) and the structured-output schema's tokens; and no more output than
 * `max_tokens` (an answer longer is cut, finish_reason "length"). For any `maxTokens`, what such a provider bills
 * over the whole run stays within it.
 */
let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
})
afterAll(() => stub.close())

// a run that never converges, so it goes on until its token budget stops it
const script: Record<string, unknown> = {
  ...convergingScript(),
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)]
}
const answerFor = (promptId: string) => {
  const entry = (script[promptId] as Array<{ output?: unknown }> | undefined)?.[0]
  return JSON.stringify(entry?.output ?? { actions: [] })
}

/** The engine with the real OpenAI provider on the stub (no retries: every request is one the stub bills). */
const engineOnStub = () =>
  Layer.mergeAll(
    Aeon.layerWithTools(),
    Layer.succeed(
      LanguageModel,
      OpenAi.make({ baseURL: stub.baseURL, apiKey: "k", model: "gpt-4o-mini", timeoutMs: 5_000, maxRetries: 0 }, {
        inputPerMillion: 1,
        outputPerMillion: 1
      })
    )
  )

const billed: Array<number> = []
const billAsOpenAi = (body: any) => {
  const messages = body.messages.reduce((n: number, m: any) => n + 3 + countTokens(m.content), 0) + 3
  const schema = body.response_format?.json_schema ? countTokens(JSON.stringify(body.response_format.json_schema)) : 0
  const content = answerFor(body.response_format?.json_schema?.name ?? "")
  const written = countTokens(content)
  const cap = body.max_tokens ?? body.max_completion_tokens ?? Number.POSITIVE_INFINITY
  const completion = Math.min(written, cap)
  billed.push(messages + schema + completion)
  return {
    content,
    finishReason: written > cap ? "length" : "stop",
    usage: { prompt_tokens: messages + schema, completion_tokens: completion }
  }
}

describe("maxTokens against what a provider bills", () => {
  it.live("for any cap, the run's billed tokens stay within it", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.integer({ min: 800, max: 4_000 }), async (cap) => {
          stub.replyWith(billAsOpenAi)
          billed.length = 0
          const engine = engineOnStub()
          const result = await Effect.runPromise(
            runTask({ task: "Compute 6 * 7 and explain it", mode: "FULL", budget: { maxTokens: cap, ttl: 6 } }).pipe(
              Effect.provide(engine)
            )
          )
          const total = billed.reduce((a, b) => a + b, 0)
          expect(total, `cap ${cap}: billed ${total} over ${billed.length} calls`).toBeLessThanOrEqual(cap)
          expect(result.usage.inputTokens + result.usage.outputTokens).toBe(total) // usage is what was billed
        }),
        { numRuns: 40 }
      )
    ), 120_000)
})

/**
 * The sweep that found a cap crossed (#54 item 1): a provider that bills with another tokenizer than Aeon's (cl100k)
 * over the whole request as sent — the messages' JSON, the `response_format` with its schema — and cuts the answer
 * at `max_tokens`. Every cap from 1,200 to 3,400 in steps of 40 holds: the run's usage, which is the bill, never
 * passes it.
 */
let billedAsSent = 0
const billAsSent = (body: any) => {
  const prompt = cl100k(JSON.stringify(body.messages)) +
    (body.response_format ? cl100k(JSON.stringify(body.response_format)) : 0) + 3
  const content = answerFor(body.response_format?.json_schema?.name ?? "")
  const written = cl100k(content)
  const cap = body.max_tokens ?? body.max_completion_tokens ?? Number.POSITIVE_INFINITY
  const completion = Math.min(written, cap)
  billedAsSent += prompt + completion
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
        billedAsSent = 0
        const result = yield* runTask({
          task: "Compute 6 * 7 and state the product",
          mode: "FULL",
          memory: false,
          budget: { maxTokens: cap, ttl: 6 }
        }).pipe(Effect.provide(engineOnStub()))
        expect(result.usage.inputTokens + result.usage.outputTokens).toBe(billedAsSent)
        if (billedAsSent > cap) crossed.push(`${cap}: billed ${billedAsSent}`)
        if (result.terminationReason === "budget_exhausted") stopped++
      }
      expect(crossed).toEqual([])
      // the sweep is about caps that stop the run: nearly every one of its 56 runs ends at its cap
      expect(stopped).toBeGreaterThanOrEqual(50)
    }), 300_000)
})

/**
 * The same provider, its answers long enough to fill whatever output cap they are given (#69 item 13): near the end of
 * the budget the output cap is lowered to what is left after the input as admitted, so the cap holds only when the
 * input is admitted as billed — the request as sent, with another tokenizer's margin — not as the bare texts (the
 * short answers above leave the lowered cap unused, and so did not tell the two apart).
 */
const PADDING = "The product of six and seven is forty-two, as the calculator confirmed. ".repeat(120)
let billedFilling = 0
const billFilling = (body: any) => {
  // a tokenizer of another family, counting 8 % more than cl100k: within what TOKENIZER_MARGIN allows for
  const prompt = Math.ceil(
    1.08 * (cl100k(JSON.stringify(body.messages)) +
      (body.response_format ? cl100k(JSON.stringify(body.response_format)) : 0) + 3)
  )
  const answer = JSON.parse(answerFor(body.response_format?.json_schema?.name ?? ""))
  const content = JSON.stringify({ ...answer, notes: PADDING })
  const written = cl100k(content)
  const cap = body.max_tokens ?? body.max_completion_tokens ?? Number.POSITIVE_INFINITY
  const completion = Math.min(written, cap)
  billedFilling += prompt + completion
  return {
    content: written > cap ? content.slice(0, cap * 3) : content,
    finishReason: written > cap ? "length" : "stop",
    usage: { prompt_tokens: prompt, completion_tokens: completion }
  }
}

describe("maxTokens against answers that fill their cap, billed by another tokenizer (#69.13)", () => {
  it.live(
    "every cap from 4,000 to 9,000 in steps of 200 holds, on a task of some length",
    () =>
      Effect.gen(function*() {
        const crossed: Array<string> = []
        // a long task, in lines with quotes (each escaped in the request's JSON): every prompt quotes it, so what the
        // JSON adds and a margin of a few per cent are tens of tokens of each call
        const task = `Compute 6 * 7 and state the product. For the record, the readings of the week were:\n${
          Array.from({ length: 300 }, (_, i) => `"sensor-${i}": "${(i * 37) % 101}"`).join("\n")
        }`
        for (let cap = 4_000; cap <= 9_000; cap += 200) {
          stub.replyWith(billFilling)
          billedFilling = 0
          const result = yield* runTask({
            task,
            mode: "FULL",
            memory: false,
            budget: { maxTokens: cap, ttl: 6 }
          }).pipe(Effect.provide(engineOnStub()))
          expect(result.usage.inputTokens + result.usage.outputTokens).toBe(billedFilling)
          if (billedFilling > cap) crossed.push(`${cap}: billed ${billedFilling}`)
        }
        expect(crossed).toEqual([])
      }),
    300_000
  )
})
