import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Stream } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as OpenAi from "../../src/llm/OpenAi.js"
import { Contracts } from "../../src/prompts/PromptRegistry.js"
import { prepare } from "../../src/run/Run.js"
import { type OpenAiStub, startOpenAiStub, type StubReply } from "../support/OpenAiStub.js"
import { byPrompt as stubAnswers } from "../support/stubAnswers.js"

let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
})
afterAll(() => stub.close())

const model = (overrides: Partial<OpenAi.OpenAiOptions> = {}) =>
  OpenAi.make({
    baseURL: stub.baseURL,
    apiKey: "k",
    model: "gpt-4o",
    timeoutMs: 5_000,
    maxRetries: 0,
    ...overrides
  })

const answer = "Six times seven is 42: the calculator's result, checked once."
/** What each prompt answers, whatever it is asked (a converging run with one calculator step). */
const byPrompt: Record<string, object> = {
  ...stubAnswers,
  answer_synthesis_user: { answerText: answer, confidence: 0.9, usedStepIds: ["s1"] }
}
const answering = (extra: (prompt: string) => Partial<StubReply> = () => ({})) =>
  stub.replyWith((body) => {
    const prompt = body.response_format?.json_schema?.name as string
    return {
      content: JSON.stringify(byPrompt[prompt] ?? {}),
      usage: { prompt_tokens: 100 + prompt.length, completion_tokens: 20 },
      ...extra(prompt)
    }
  })

const run = (service: LanguageModel["Type"], input: object = {}) =>
  Effect.gen(function*() {
    const prepared = yield* prepare({ task: "Compute 6 * 7", mode: "FULL", budget: { ttl: 1 }, ...input })
    const result = yield* prepared.execute
    return { result, log: yield* prepared.events.log }
  }).pipe(Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, service))))

/** The recorded calls, less what differs between two runs of the same script (time, ids). */
const callsOf = (log: ReadonlyArray<RunEvent>) =>
  log.filter((e) => e._tag === "LlmCalled").map(({ at: _at, latencyMs: _l, runId, ...rest }) =>
    JSON.parse(JSON.stringify(rest).replaceAll(runId, "RUN"))
  )

describe("answers streamed from an OpenAI-compatible endpoint (#33)", () => {
  it.live("a streamed run's result, usage, cost and recorded calls are those of the same script unstreamed", () =>
    Effect.gen(function*() {
      answering(() => ({ chunkChars: 5 }))
      const streamed = yield* run(model())
      expect(stub.requests.every((r) => r.stream === true && r.stream_options?.include_usage === true)).toBe(true)
      expect(stub.sentChunks.length).toBeGreaterThan(20)
      answering()
      const plain = yield* run(model({ stream: false }))
      expect(stub.requests.every((r) => r.stream === undefined)).toBe(true)
      expect(streamed.result.status).toBe("CONVERGED")
      expect(streamed.result.finalAnswer?.answerText).toBe(answer)
      const outcome = (r: typeof plain.result) => ({
        status: r.status,
        finalAnswer: r.finalAnswer,
        usage: r.usage,
        plan: r.plan,
        advisories: r.advisories,
        passes: r.history.passes.length
      })
      expect(outcome(streamed.result)).toEqual(outcome(plain.result))
      expect(streamed.result.usage.costUsd).toBeGreaterThan(0)
      expect(callsOf(streamed.log)).toEqual(callsOf(plain.log))
    }))

  it.live("a finish_reason \"length\" in the last chunk is never accepted, however well the text parses", () =>
    Effect.gen(function*() {
      const good = JSON.stringify(byPrompt.answer_synthesis_user)
      stub.reply({ content: good, finishReason: "length" })
      const exit = yield* Effect.exit(
        model().generate(Contracts.answerSynthesis, {
          request: "Compute 6 * 7",
          executionResults: [{ stepId: "s1", description: "Compute", status: "complete", stepOutput: "42" }],
          convergenceStatus: true,
          label: "converged",
          totalPasses: 1,
          ttlRemaining: 1
        })
      )
      expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("ModelTruncatedError")
      expect(stub.requests.every((r) => r.stream === true)).toBe(true)
    }))

  it.live("an endpoint that refuses streaming gets plain calls, and is remembered", () =>
    Effect.gen(function*() {
      answering(() => ({ refuseStream: true }))
      const service = model()
      const { result } = yield* run(service)
      expect(result.status).toBe("CONVERGED")
      expect(stub.requests[0].stream).toBe(true)
      expect(stub.requests.slice(1).every((r) => r.stream === undefined)).toBe(true)
    }))

  it.live("cancelling mid-stream closes the HTTP request; no recorded call holds text that did not arrive", () =>
    Effect.gen(function*() {
      answering((prompt) => (prompt === "answer_synthesis_user" ? { chunkChars: 4, stallAfterChunks: 3 } : {}))
      const prepared = yield* prepare({ task: "Compute 6 * 7", mode: "FULL", budget: { ttl: 1 } }).pipe(
        Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model())))
      )
      const pieces: Array<string> = []
      // the synthesis's three chunks sent (then it stalls), and shown live (the last one once the output's interval
      // has passed): then cancelled
      const sent = () => stub.sentChunks.map((c) => c.text).join("")
      const stalled = () => stub.sentChunks.filter((c) => c.prompt === "answer_synthesis_user").length >= 3
      const shown = yield* Deferred.make<void>()
      yield* Effect.fork(Stream.runForEach(prepared.events.output, (d) =>
        Effect.sync(() => {
          pieces.push(d.text)
          if (stalled() && pieces.join("").endsWith(sent())) Deferred.unsafeDone(shown, Exit.void)
        })))
      const fiber = yield* Effect.fork(prepared.execute)
      yield* Deferred.await(shown)
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => stub.until(() => stub.disconnects.length > 0))
      expect(stub.disconnects.map((b) => b.response_format.json_schema.name)).toEqual(["answer_synthesis_user"])
      const received = stub.sentChunks.map((c) => c.text).join("")
      // what the endpoint sent is what the live output showed: every call's text, the cancelled one's three chunks
      expect(pieces.join("")).toBe(received)
      expect(received.endsWith("{\"answerText")).toBe(true)
      const log = yield* prepared.events.log
      const synthesis = log.filter((e) => e._tag === "LlmCalled" && e.promptId === "answer_synthesis_user")
      for (const e of synthesis) expect(e._tag === "LlmCalled" && e.call?.response).toBeFalsy()
    }))

  it.live("cached prompt tokens are read from usage and priced at the cached rate", () =>
    Effect.gen(function*() {
      stub.reply({
        content: JSON.stringify(byPrompt.answer_synthesis_user),
        usage: { prompt_tokens: 1_000, completion_tokens: 100 },
        cachedTokens: 800
      })
      const generated = yield* model().generate(Contracts.answerSynthesis, {
        request: "Compute 6 * 7",
        executionResults: [{ stepId: "s1", description: "Compute", status: "complete", stepOutput: "42" }],
        convergenceStatus: true,
        label: "converged",
        totalPasses: 1,
        ttlRemaining: 1
      })
      // gpt-4o: $2.50 a million input tokens, $1.25 cached, $10 output
      expect(generated.usage.cachedTokens).toBe(800)
      expect(generated.usage.costUsd).toBeCloseTo((200 * 2.5 + 800 * 1.25 + 100 * 10) / 1e6, 12)
    }))
})
