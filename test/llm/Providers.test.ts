import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createServer } from "node:net"
import { afterAll, beforeAll } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as OpenAi from "../../src/llm/OpenAi.js"
import { Contracts } from "../../src/prompts/PromptRegistry.js"
import { prepare } from "../../src/run/Run.js"
import { type OpenAiStub, startOpenAiStub, stubModel, type StubReply } from "../support/OpenAiStub.js"
import { byPrompt } from "../support/stubAnswers.js"

/**
 * Providers as they really answer (#42 item 1, item 3): a JSON body to a stream request, reasoning blocks before the
 * JSON, usage missing / 0 / not a number, a server that ignores json_schema, an empty answer, and endpoints that
 * cannot serve the run at all. Each case is a reply of the stub; the run goes through the real `openai` client.
 */

let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
})
afterAll(() => stub.close())

const model = (overrides: Partial<OpenAi.OpenAiOptions> = {}) => stubModel(stub, overrides)

/** The prompt a request is for: its json_schema's name, else the answer whose fields the schema in its prompt asks. */
const promptOf = (body: any): string | undefined => {
  const named = body.response_format?.json_schema?.name
  if (named) return named
  const system: string = body.messages[0].content
  const at = system.indexOf("JSON Schema:\n")
  if (at < 0) return undefined
  const required: Array<string> = JSON.parse(system.slice(at + "JSON Schema:\n".length)).required ?? []
  return Object.keys(byPrompt).find((p) => required.every((k) => k in byPrompt[p]!))
}

/** Answers each request with the converging script's answer for its prompt, shaped by `shape`. */
const answering = (shape: (body: any, json: string) => Partial<StubReply>) => {
  let last: string | undefined
  stub.replyWith((body) => {
    const prompt = promptOf(body) ?? last
    last = prompt
    const json = JSON.stringify(byPrompt[prompt ?? ""] ?? {})
    return { content: json, ...shape(body, json) }
  })
}

const run = (input: object, service: LanguageModel["Type"] = model()) =>
  Effect.gen(function*() {
    const prepared = yield* prepare({ task: "Compute 6 * 7", mode: "FULL", budget: { ttl: 1 }, ...input })
    const result = yield* prepared.execute
    return { result, log: yield* prepared.events.log }
  }).pipe(Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, service))))

const calls = (log: ReadonlyArray<RunEvent>) => log.flatMap((e) => (e._tag === "LlmCalled" ? [e] : []))
const sum = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0)
const repairs = () => stub.requests.filter((b) => promptOf(b)?.startsWith("supervisor_repair")).length

describe("providers as they answer (#42)", () => {
  it.live("a JSON body to every streamed request: converged, its usage what the stub billed, no repair", () =>
    Effect.gen(function*() {
      answering(() => ({ jsonToStream: true, report: "billed" }))
      const { log, result } = yield* run({})
      expect(stub.requests.every((b) => b.stream === true)).toBe(true)
      expect(result.status).toBe("CONVERGED")
      expect(result.usage.inputTokens).toBe(sum(stub.billed.map((b) => b.prompt_tokens)))
      expect(result.usage.outputTokens).toBe(sum(stub.billed.map((b) => b.completion_tokens)))
      expect(result.usage.estimatedCalls).toBeUndefined()
      expect(repairs()).toBe(0)
      expect(calls(log).every((c) => c.call?.response !== "")).toBe(true)
    }))

  it.live("a reasoning block before the JSON is removed before decoding and kept in the recorded call", () =>
    Effect.gen(function*() {
      answering((_b, json) => ({ content: `<think>\nThe user wants {a plan}. Let me think.\n</think>\n\n${json}` }))
      const { log, result } = yield* run({})
      expect(result.status).toBe("CONVERGED")
      expect(repairs()).toBe(0)
      expect(calls(log)[0]!.call?.response).toContain("<think>")
      expect(calls(log).every((c) => c.call?.decodeError === undefined)).toBe(true)
    }))

  for (const report of ["absent", "zero", "nan"] as const) {
    it.live(`usage ${report}: estimated on the high side, a token cap never crossed by what the provider bills`, () =>
      Effect.gen(function*() {
        const cap = 2_500
        for (const jsonToStream of [false, true]) {
          answering(() => ({ report, jsonToStream }))
          const { log, result } = yield* run({ budget: { ttl: 2, maxTokens: cap, maxCostUsd: 1e9 } })
          const billed = sum(stub.billed.map((b) => b.prompt_tokens + b.completion_tokens))
          expect(billed).toBeLessThanOrEqual(cap)
          expect(result.usage.inputTokens + result.usage.outputTokens).toBeGreaterThanOrEqual(billed)
          expect(result.usage.estimatedCalls).toBe(calls(log).length)
          expect(calls(log).every((c) => c.estimated === true && c.inputTokens > 0)).toBe(true)
          expect(result.usage.inputTokens).toBeGreaterThanOrEqual(sum(stub.billed.map((b) => b.prompt_tokens)))
        }
      }))
  }

  it.live("a cap that the estimate reaches stops the run before the provider's bill crosses it", () =>
    Effect.gen(function*() {
      answering(() => ({ report: "absent" }))
      const { result } = yield* run({ budget: { ttl: 3, maxTokens: 1_200, maxCostUsd: 1e9 } })
      expect(sum(stub.billed.map((b) => b.prompt_tokens + b.completion_tokens))).toBeLessThanOrEqual(1_200)
      expect(result.terminationReason).toBe("budget_exhausted")
    }))

  it.live("a server that ignores json_schema: JSON mode, then the schema in the prompt, remembered", () =>
    Effect.gen(function*() {
      // prose whenever the format is asked through response_format; JSON once the schema is in the prompt
      answering((body) =>
        body.response_format ? { content: "Sure! The plan is to compute six times seven with the calculator." } : {}
      )
      const { result } = yield* run({})
      expect(result.status).toBe("CONVERGED")
      expect(stub.requests[0].response_format.type).toBe("json_schema")
      expect(stub.requests[1].response_format.type).toBe("json_object")
      expect(stub.requests[2].response_format).toBeUndefined()
      expect(stub.requests[2].messages[0].content).toContain("JSON Schema")
      // stepped down once: every later request asks with the schema in its prompt
      expect(stub.requests.slice(2).every((b) => b.response_format === undefined)).toBe(true)
      expect(repairs()).toBe(0)
    }))

  it.live("LM Studio: json_object refused with a 400 steps down to the schema in the prompt", () =>
    Effect.gen(function*() {
      // json_schema honoured for the first call, then refused; json_object always refused
      let schemaCalls = 0
      answering((body) =>
        body.response_format?.type === "json_object" || (body.response_format && schemaCalls++ > 0)
          ? { status: 400, body: { error: { message: "'response_format.type' must be 'json_schema'" } } }
          : {}
      )
      const { result } = yield* run({})
      expect(result.status).toBe("CONVERGED")
      const formats = stub.requests.map((b) => b.response_format?.type ?? "prompt")
      expect(formats.slice(0, 4)).toEqual(["json_schema", "json_schema", "json_object", "prompt"])
      expect(formats.slice(3).every((f) => f === "prompt")).toBe(true)
    }))

  it.live("an empty answer is the provider's failure: retried once, never sent to repair", () =>
    Effect.gen(function*() {
      const good = JSON.stringify({ answerText: "4", confidence: 0.9, usedStepIds: ["s1"] })
      const input = {
        request: "Compute 2 + 2",
        executionResults: [{ stepId: "s1", description: "Compute", status: "complete", stepOutput: "4" }],
        convergenceStatus: true,
        label: "converged",
        totalPasses: 1,
        ttlRemaining: 2
      }
      stub.reply({ content: "", usage: { prompt_tokens: 100, completion_tokens: 0 } }, { content: good })
      const r = yield* model().generate(Contracts.answerSynthesis, input)
      expect(r.output.answerText).toBe("4")
      expect(r.usage.requests).toBe(2)

      stub.reply({ content: "", usage: { prompt_tokens: 100, completion_tokens: 0 } })
      const e = yield* Effect.flip(model().generate(Contracts.answerSynthesis, input))
      expect(e._tag).toBe("ModelUnavailableError")
      expect(e.message).toContain("no content")
      expect(stub.requests).toHaveLength(2) // one retry, not maxRetries (3)
    }))

  it.live("nothing listening at the URL: FAILED in at most 3 requests and 10 s, the URL and the cause named", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const s = createServer().listen(0, "127.0.0.1", () => {
            const p = (s.address() as { port: number }).port
            s.close(() => resolve(p))
          })
        })
      )
      const url = `http://127.0.0.1:${port}/v1`
      const started = Date.now()
      for (const mode of ["AUTO", "FULL"]) {
        const { result } = yield* run(
          { task: "Compute 17 + 25", mode, budget: {} },
          model({ baseURL: url, retryBaseMs: 500 })
        )
        expect(result.status).toBe("FAILED")
        expect(result.usage.llmCalls).toBeLessThanOrEqual(3)
        expect(result.error).toContain(url)
        expect(result.error).toContain("connection refused")
        expect(result.simple.escalation).toBeUndefined()
      }
      expect(Date.now() - started).toBeLessThan(2 * 10_000)
    }))

  it.live("a refused key and an unknown model end the run after one request each", () =>
    Effect.gen(function*() {
      stub.reply({ status: 401 })
      const refused = yield* run({ mode: "AUTO" })
      expect(refused.result.status).toBe("FAILED")
      expect(stub.requests).toHaveLength(1)
      expect(refused.result.error).toContain("refused the API key")

      stub.reply({ status: 404, body: { error: { message: "model 'llama9' not found" } } })
      const unknown = yield* run({ mode: "AUTO" }, model({ model: "llama9" }))
      expect(unknown.result.status).toBe("FAILED")
      expect(stub.requests).toHaveLength(1)
      expect(unknown.result.error).toContain("does not serve model llama9")

      // a transient failure still gets its retries and the run goes on
      answering(() => ({}))
      let failed = 0
      stub.replyWith((
        body
      ) => (failed++ < 2 ? { status: 503 } : { content: JSON.stringify(byPrompt[promptOf(body)!]) }))
      const recovered = yield* run({})
      expect(recovered.result.status).toBe("CONVERGED")
    }))
})
