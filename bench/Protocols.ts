import { createClient } from "graphql-ws"
import OpenAI from "openai"
import WebSocket from "ws"
import { ANSWER } from "../test/support/stubAnswers.js"
import { pacedStubServer } from "./ModelOutput.js"
import { followedRun } from "./Streaming.js"
import { percentile } from "./support.js"

/**
 * Row 44a (issue 45): a run's events to `subscribers` clients of AG-UI (`/ag-ui`, @ag-ui/client's HttpAgent) or the
 * AI SDK's UI message stream (`/api/chat/:id/stream`, the `ai` package's transport), at a model's pace (a call every
 * 100 ms), the clients in another process — the same run as row 12b's GraphQL-over-SSE figure, measured beside it.
 */
export const protocolFanOut = async (
  protocol: "ag-ui" | "ui-stream",
  subscribers = 100,
  reader: "client" | "raw" = "client"
) => {
  const live = await followedRun(100, (url, runId) => [
    new URL("./ProtocolClients.ts", import.meta.url).pathname,
    url.replace(/\/graphql$/, ""),
    runId,
    protocol,
    String(subscribers),
    reader
  ])
  return { protocol, subscribers, events: live.length, p50: percentile(live, 50), p99: percentile(live, 99) }
}

/**
 * Row 44b (issue 45): time to the answer's first text through `/v1/chat/completions` (stream: true, the `openai`
 * client) against the same run through GraphQL (runTask, then a runOutput subscription over WebSocket until the
 * answer call's first piece of text), taking turns; and to its last text. The model is the real `openai` client
 * against the OpenAI-compatible stub in a process of its own, the final answer written in 8-character chunks 10 ms
 * apart after a second.
 */
export const timeToFirstToken = async (rounds: number) => {
  const { app, stub } = await pacedStubServer()
  const openai = new OpenAI({ baseURL: app.url.replace(/\/graphql$/, "/v1"), apiKey: "unused", maxRetries: 0 })
  const ws = createClient({
    url: app.url.replace("http", "ws"),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false
  })
  const viaOpenAi = async () => {
    const t0 = performance.now()
    let first: number | undefined
    const stream = await openai.chat.completions.create({
      model: "aeon-full",
      messages: [{ role: "user", content: "Compute 6 * 7" }],
      stream: true
    })
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) first ??= performance.now()
    return { first: first! - t0, last: performance.now() - t0 }
  }
  const viaGraphQL = async () => {
    const t0 = performance.now()
    const res = await fetch(app.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `mutation { runTask(input: { task: "Compute 6 * 7", mode: FULL }) { id } }` })
    })
    const id = ((await res.json()) as any).data.runTask.id as string
    let first: number | undefined
    let last = 0
    for await (
      const m of ws.iterate<{ runOutput: { promptId: string; answerText: string | null } }>({
        query: `subscription($id: ID!) { runOutput(runId: $id) { promptId answerText } }`,
        variables: { id }
      })
    ) {
      if (m.data?.runOutput.promptId === ANSWER && m.data.runOutput.answerText) first ??= performance.now()
      last = performance.now()
    }
    return { first: first! - t0, last: last - t0 }
  }
  const openAiRuns: Array<{ first: number; last: number }> = []
  const graphqlRuns: Array<{ first: number; last: number }> = []
  try {
    await viaOpenAi() // warm-up of each path
    await viaGraphQL()
    for (let i = 0; i < rounds; i++) {
      openAiRuns.push(await viaOpenAi())
      graphqlRuns.push(await viaGraphQL())
    }
  } finally {
    await ws.dispose()
    await app.stop()
    stub.close()
  }
  const med = (xs: Array<number>) => percentile(xs, 50)
  return {
    rounds,
    openAiFirst: med(openAiRuns.map((r) => r.first)),
    graphqlFirst: med(graphqlRuns.map((r) => r.first)),
    openAiLast: med(openAiRuns.map((r) => r.last)),
    graphqlLast: med(graphqlRuns.map((r) => r.last))
  }
}
