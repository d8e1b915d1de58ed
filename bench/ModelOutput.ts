import { Effect, Layer } from "effect"
import { createClient } from "graphql-ws"
import { fork } from "node:child_process"
import OpenAI from "openai"
import WebSocket from "ws"
import * as Aeon from "../src/Aeon.js"
import { serve } from "../src/launch/App.js"
import { LanguageModel } from "../src/llm/LanguageModel.js"
import * as OpenAi from "../src/llm/OpenAi.js"
import { prepare } from "../src/run/Run.js"
import { ANSWER, byPrompt } from "../test/support/stubAnswers.js"
import { median, memoryStore, percentile, takeTurns } from "./support.js"

type StubMessage =
  | { readonly type: "ready"; readonly baseURL: string }
  | { readonly type: "ok" }
  | { readonly type: "chunks"; readonly chunks: ReadonlyArray<{ readonly length: number; readonly at: number }> }

/** The stub in its own process (bench/StubProcess.ts), driven over IPC. */
const stubProcess = async () => {
  const child = fork(new URL("./StubProcess.ts", import.meta.url).pathname, [], { execArgv: ["--import", "tsx"] })
  const next = () => new Promise<StubMessage>((resolve) => child.once("message", (m) => resolve(m as StubMessage)))
  const ready = await next()
  const ask = async (type: "paced" | "plain" | "model" | "chunks") => {
    const answer = next()
    child.send({ type })
    return answer
  }
  return {
    baseURL: (ready as Extract<StubMessage, { type: "ready" }>).baseURL,
    answer: (mode: "paced" | "plain" | "model") => ask(mode),
    chunks: async () => ((await ask("chunks")) as Extract<StubMessage, { type: "chunks" }>).chunks,
    close: () => void child.kill()
  }
}

/**
 * A server whose model is the real `openai` client against the stub in its own process, answering "paced" (the final
 * answer in 8-character chunks 10 ms apart after a second, the other calls at once).
 */
export const pacedStubServer = async () => {
  const stub = await stubProcess()
  await stub.answer("paced")
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
  return { app, stub }
}

/** The machine's clock, comparable across processes. */
const clock = () => performance.timeOrigin + performance.now()

/**
 * Row 15a: from a chunk leaving the endpoint to the piece that carries it reaching each of `subscribers` runOutput
 * subscribers (WebSocket, loopback). The endpoint is the local OpenAI-compatible stub, the model the real `openai`
 * client streaming from it; the final answer is written in 8-character chunks 10 ms apart (about 80
 * chunks), the run's other calls at once. The stub is a process of its own (as a provider is not on the server's
 * machine); the subscribers are in the server's process, so their work shares its event loop: the figure is if
 * anything high. Pieces are coalesced every 50 ms (the
 * default), so a chunk waits up to 50 ms by design.
 */
export const modelOutputDelivery = async (subscribers: number, runs: number) => {
  const { app, stub } = await pacedStubServer()
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
      await stub.chunks() // what the stub sent before this run
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
          const piece = m.data?.runOutput
          if (piece?.promptId !== ANSWER) continue
          length += piece.text.length
          grown.push({ length, at: clock() })
        }
        return grown
      }))
      // the chunks of the answer call: the stub's record, the role chunk left out
      let end = 0
      const chunks = (await stub.chunks()).map((c) => ({ end: (end += c.length), at: c.at }))
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
    stub.close()
  }
  return { subscribers, runs, chunks: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}

/**
 * Row 15b: a run's wall time with the model's answers streamed (stream: true, every chunk through the run's live
 * output, nobody subscribed) against the same run with plain calls; the two take turns run by run. `model`: the
 * endpoint writes at a model's pace (8 characters every 5 ms; a plain reply comes when it would have been written);
 * otherwise it answers at once, and the figure is the cost of streaming itself, set beside the floor: the same
 * answers asked of the `openai` client alone, streamed and plain.
 */
export const streamedWall = async (rounds: number, paced: boolean) => {
  const stub = await stubProcess()
  await stub.answer(paced ? "model" : "plain")
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
  const warmup = paced ? 2 : 20
  const [streamed, plain] = await takeTurns([side(true), side(false)], warmup, rounds)
  const floor = paced ? undefined : await sdkFloor(stub.baseURL, rounds)
  stub.close()
  return {
    rounds,
    paced,
    streamedMs: median(streamed!),
    plainMs: median(plain!),
    ratio: median(streamed!) / median(plain!),
    ...(floor ? { sdkRatio: floor.streamed / floor.plain } : {})
  }
}

/** The same seven answers asked of the `openai` client alone, streamed (read to the end) and plain, taking turns. */
const sdkFloor = async (baseURL: string, rounds: number) => {
  const client = new OpenAI({ baseURL, apiKey: "k", maxRetries: 0 })
  const ask = (stream: boolean) => async () => {
    const started = performance.now()
    for (const prompt of Object.keys(byPrompt)) {
      const body = {
        model: "gpt-4o-mini",
        messages: [{ role: "user" as const, content: "x" }],
        response_format: { type: "json_schema" as const, json_schema: { name: prompt, schema: {} } }
      }
      if (stream) {
        const chunks = await client.chat.completions.create({
          ...body,
          stream: true,
          stream_options: { include_usage: true }
        })
        let text = ""
        for await (const c of chunks) text += c.choices[0]?.delta?.content ?? ""
        if (text === "") throw new Error(`the stub streamed no text for ${prompt}`)
      } else await client.chat.completions.create(body)
    }
    return performance.now() - started
  }
  const [streamed, plain] = await takeTurns([ask(true), ask(false)], 20, rounds)
  return { streamed: median(streamed!), plain: median(plain!) }
}
