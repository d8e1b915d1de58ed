import { GraphQLError } from "graphql"
import { createClient as createSseClient } from "graphql-sse"
import { createClient as createWsClient } from "graphql-ws"
import type { Readable } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { PromptId } from "../../src/prompts/PromptId.js"
import { resultsBody as sseBody } from "../../src/server/graphql/SseResults.js"
import { convergingScript, reasoned } from "../support/scripts.js"
import { gql, startServer, type TestServer } from "../support/server.js"

/**
 * Many subscribers of one run, with different operations, over both transports at once: each gets its own selection
 * of every event. And the SSE response: results taken together in one chunk, a feed's coded failure as a result.
 */
let server: TestServer
beforeAll(async () => {
  server = await startServer({
    // a slow first step: every client has subscribed before the run's steps are published
    script: { ...convergingScript(), [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 600 }] }
  })
}, 60_000)
afterAll(() => server?.stop())

type Data = Record<string, unknown>
const iterate = (transport: "sse" | "ws", query: string, variables: Data): AsyncIterable<{ data?: Data | null }> => {
  if (transport === "sse") {
    const c = createSseClient({ url: server.url, headers: { "x-graphql-yoga-csrf": "1" } })
    return c.iterate({ query, variables })
  }
  const c = createWsClient({ url: server.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
  return c.iterate({ query, variables })
}
const collect = async (transport: "sse" | "ws", query: string, variables: Data) => {
  const seen: Array<Data> = []
  for await (const r of iterate(transport, query, variables)) {
    const value = r.data!.runEvents ?? r.data!.runEventBatches
    seen.push(...(Array.isArray(value) ? value : [value]) as Array<Data>)
  }
  return seen
}

const operations = {
  seqType: `subscription($id: ID!) { runEvents(runId: $id) { seq type } }`,
  seqAt: `subscription($id: ID!) { runEvents(runId: $id) { seq at ... on StepFinishedEvent { stepOutput } } }`,
  aliased: `subscription($id: ID!) { runEvents(runId: $id) { n: seq kind: type } }`,
  included:
    `subscription($id: ID!, $withType: Boolean!) { runEvents(runId: $id) { seq type @include(if: $withType) } }`,
  batches: `subscription($id: ID!) { runEventBatches(runId: $id) { seq type } }`
}

describe("subscribers of one run with different operations, over SSE and WebSocket at once", () => {
  it("each receives exactly its own selection of every event", async () => {
    const id = (await gql(server.url, `mutation { runTask(input: { task: "Compute 6 * 7", mode: FULL }) { id } }`))
      .body.data.runTask.id as string
    const clients = (["sse", "ws"] as const).flatMap((t) => [
      collect(t, operations.seqType, { id }),
      collect(t, operations.seqType, { id }),
      collect(t, operations.seqAt, { id }),
      collect(t, operations.aliased, { id }),
      collect(t, operations.included, { id, withType: false }),
      collect(t, operations.included, { id, withType: true }),
      collect(t, operations.batches, { id })
    ])
    const results = await Promise.all(clients)
    const stored = (await gql(server.url, `query($id: ID!) { run(id: $id) { events { seq type at } } }`, { id }))
      .body.data.run.events as Array<{ seq: number; type: string; at: string }>
    expect(stored.length).toBeGreaterThan(10)
    const steps = (await gql(
      server.url,
      `query($id: ID!) { run(id: $id) { events { seq ... on StepFinishedEvent { stepOutput } } } }`,
      { id }
    )).body.data.run.events as Array<{ seq: number; stepOutput?: string }>
    const seqType = stored.map(({ seq, type }) => ({ seq, type }))
    for (const t of [0, 7]) {
      const [a, b, withAt, aliased, without, withType, batches] = results.slice(t, t + 7)
      expect(a).toEqual(seqType)
      expect(b).toEqual(seqType)
      expect(withAt).toEqual(stored.map(({ at, seq }, i) => ({
        seq,
        at,
        ...(steps[i]!.stepOutput !== undefined ? { stepOutput: steps[i]!.stepOutput } : {})
      })))
      expect(aliased).toEqual(stored.map(({ seq, type }) => ({ n: seq, kind: type })))
      expect(without).toEqual(stored.map(({ seq }) => ({ seq })))
      expect(withType).toEqual(seqType)
      expect(batches).toEqual(seqType)
    }
  }, 60_000)
})

const read = async (body: Readable) => {
  body.setEncoding("utf8")
  const chunks: Array<string> = []
  for await (const chunk of body) chunks.push(String(chunk))
  return chunks
}
const results = (values: ReadonlyArray<unknown>, failure?: Error): AsyncIterator<any> => {
  let i = 0
  return {
    next: () =>
      i < values.length
        ? Promise.resolve({ done: false, value: values[i++] })
        : failure
        ? Promise.reject(failure)
        : Promise.resolve({ done: true, value: undefined })
  }
}

describe("SSE responses", () => {
  it("writes the results taken in one burst as one chunk, then completes", async () => {
    const body = sseBody(results([{ data: { n: 1 } }, { data: { n: 2 } }, { data: { n: 3 } }]))
    const pushed: Array<unknown> = []
    const push = body.push.bind(body)
    body.push = (chunk: unknown) => (pushed.push(chunk), push(chunk))
    const text = (await read(body)).join("")
    expect(text).toBe(
      ":\n\n" + [1, 2, 3].map((n) => `event: next\ndata: {"data":{"n":${n}}}\n\n`).join("") +
        "event: complete\ndata:\n\n"
    )
    // the keep-alive comment, the three results and the end went out together: one chunk (one write), then the end
    expect(pushed).toEqual([text, null])
  })

  it("sends a feed's coded failure as an error result, not a broken stream; other failures are masked", async () => {
    const tooSlow = new GraphQLError("this subscriber fell 10000 events behind", {
      extensions: { code: "SUBSCRIBER_TOO_SLOW", fromSeq: 7 }
    })
    const text = (await read(sseBody(results([{ data: { n: 1 } }], tooSlow)))).join("")
    const errors = text.split("\n").filter((l) => l.startsWith("data: {\"errors\""))
    expect(JSON.parse(errors[0]!.slice(6))).toEqual({
      errors: [{ message: tooSlow.message, extensions: { code: "SUBSCRIBER_TOO_SLOW", fromSeq: 7 } }]
    })
    expect(text.endsWith("event: complete\ndata:\n\n")).toBe(true)
    const masked = (await read(sseBody(results([], new Error("SQLITE_BUSY: database is locked"))))).join("")
    expect(masked).not.toContain("SQLITE")
    expect(masked).toContain("INTERNAL_SERVER_ERROR")
  })
})
