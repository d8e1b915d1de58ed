import { Effect, Layer } from "effect"
import { createClient } from "graphql-ws"
import WebSocket from "ws"
import * as Aeon from "../src/Aeon.js"
import { serve } from "../src/launch/App.js"
import { LanguageModel } from "../src/llm/LanguageModel.js"
import * as OpenAi from "../src/llm/OpenAi.js"
import { prepare } from "../src/run/Run.js"
import { startOpenAiStub } from "../test/support/OpenAiStub.js"
import { median, memoryStore, percentile, takeTurns } from "./support.js"

/** A converging one-step run's answers, by prompt, as an OpenAI-compatible endpoint would write them. */
const byPrompt: Record<string, object> = {
  taskprofile_inference_user: {
    reasoningDepth: 1,
    informationSufficiency: 0.9,
    expectedToolUsage: "minimal",
    outputBreadth: "narrow",
    confidenceRequirement: "medium",
    rawInference: "bench"
  },
  plan_generation_user: {
    goal: "Compute 6 * 7",
    steps: [{ stepId: "s1", description: "Compute 6 * 7", tool: "calculator", toolInput: { expression: "6 * 7" } }]
  },
  validation_semantic_user: { issues: [] },
  reasoning_step_user: { stepOutput: "6 * 7 = 42", clarityState: "CLEAR", handoffToNext: "42" },
  convergence_assessment_user: {
    converged: true,
    completenessScore: 1,
    coherenceScore: 1,
    consistencyAlignment: {},
    reasoning: "ok",
    confidence: 1
  },
  answer_synthesis_user: {
    answerText: "Forty-two. ".repeat(60).trim(),
    confidence: 0.9,
    usedStepIds: ["s1"]
  }
}

const ANSWER = "answer_synthesis_user"

/**
 * Row 15a: from a chunk leaving the endpoint to the piece that carries it reaching each of `subscribers` runOutput
 * subscribers (WebSocket, loopback). The endpoint is the local OpenAI-compatible stub in this process, the model the
 * real `openai` client streaming from it; the final answer is written in 8-character chunks 10 ms apart (about 80
 * chunks), the run's other calls at once. The subscribers are in this process too (one clock for both ends): their
 * work shares the server's event loop, so the figure is if anything high. Pieces are coalesced every 50 ms (the
 * default), so a chunk waits up to 50 ms by design.
 */
export const modelOutputDelivery = async (subscribers: number, runs: number) => {
  const stub = await startOpenAiStub()
  stub.replyWith((body) => {
    const prompt = body.response_format?.json_schema?.name as string
    return {
      content: JSON.stringify(byPrompt[prompt] ?? {}),
      ...(prompt === ANSWER ? { chunkChars: 8, chunkDelayMs: 10, delayMs: 1_000 } : {})
    }
  })
  const model = OpenAi.make({
    baseURL: stub.baseURL,
    apiKey: "k",
    model: "gpt-4o-mini",
    timeoutMs: 30_000,
    maxRetries: 0
  })
  const app = await serve({ port: 0, host: "127.0.0.1" }, {
    engine: Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model)),
    database: memoryStore as Layer.Layer<any, any>
  })
  const latencies: Array<number> = []
  try {
    const clients = Array.from(
      { length: subscribers },
      () =>
        createClient({ url: app.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0, lazy: false })
    )
    for (let r = 0; r < runs; r++) {
      const res = await fetch(app.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: `mutation { runTask(input: { task: "Compute 6 * 7", mode: FULL }) { id } }` })
      })
      const id = ((await res.json()) as any).data.runTask.id as string
      stub.sentChunks.length = 0
      // each subscriber: when its answer text grew past each chunk's end
      const arrivals = await Promise.all(clients.map(async (client) => {
        const grown: Array<{ length: number; at: number }> = []
        let length = 0
        for await (
          const m of client.iterate<{ runOutput: { promptId: string; text: string } }>({
            query: `subscription($id: ID!) { runOutput(runId: $id) { promptId text } }`,
            variables: { id }
          })
        ) {
          if (m.data?.runOutput.promptId !== ANSWER) continue
          length += m.data.runOutput.text.length
          grown.push({ length, at: performance.now() })
        }
        return grown
      }))
      // the chunks of the answer call: the stub's record, the role chunk left out
      let end = 0
      const chunks = stub.sentChunks.filter((c) => c.prompt === ANSWER).map((c) => ({
        end: (end += c.text.length),
        at: c.at
      }))
      for (const grown of arrivals) {
        for (const c of chunks) {
          const arrived = grown.find((g) => g.length >= c.end)
          if (arrived) latencies.push(arrived.at - c.at)
        }
      }
    }
    for (const c of clients) await c.dispose()
  } finally {
    await app.stop()
    await stub.close()
  }
  return { subscribers, runs, chunks: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}

/**
 * Row 15b: a run's wall time with the model's answers streamed (stream: true, every chunk through the run's live
 * output, nobody subscribed) against the same run with plain calls, the same stub answering at once; the two take
 * turns run by run.
 */
export const streamedWall = async (rounds: number) => {
  const stub = await startOpenAiStub()
  stub.replyWith((body) => ({ content: JSON.stringify(byPrompt[body.response_format?.json_schema?.name] ?? {}) }))
  const side = (stream: boolean) => {
    const model = OpenAi.make({
      baseURL: stub.baseURL,
      apiKey: "k",
      model: "gpt-4o-mini",
      timeoutMs: 30_000,
      maxRetries: 0,
      stream
    })
    const layer = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model))
    return () =>
      Effect.runPromise(
        Effect.gen(function*() {
          const started = performance.now()
          const p = yield* prepare({ task: "Compute 6 * 7", mode: "FULL", budget: { ttl: 1 } })
          yield* p.execute
          return performance.now() - started
        }).pipe(Effect.provide(layer))
      )
  }
  const [streamed, plain] = await takeTurns([side(true), side(false)], 20, rounds)
  await stub.close()
  return { rounds, streamedMs: median(streamed!), plainMs: median(plain!), ratio: median(streamed!) / median(plain!) }
}
