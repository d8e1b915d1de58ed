import { GraphQLError } from "graphql"
import { createClient as createSseClient } from "graphql-sse"
import { createClient as createWsClient } from "graphql-ws"
import type { Readable } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { PromptId } from "../../src/prompts/PromptId.js"
import { sseBody } from "../../src/server/BurstDelivery.js"
import { convergingScript, reasoned } from "../support/scripts.js"
import { gql, startServer, type TestServer, waitFor } from "../support/server.js"

/**
 * Issue 19, item 1: an event is executed and serialized once per (document, operation, variables) and shared by the
 * subscribers of that operation. What must never happen: a subscriber given another operation's selection.
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

describe("SSE delivery in bursts", () => {
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

describe("the shared execution", () => {
  it("executes an event's selection once for all the subscribers of one operation, once more for another", async () => {
    const { createPubSub, createSchema, createYoga } = await import("graphql-yoga")
    const { sharedSubscriptions } = await import("../../src/server/SharedResults.js")
    // the listeners the pubsub adds: one per subscriber whose stream is being read
    let listening = 0
    const eventTarget = new (class extends EventTarget {
      override addEventListener(...args: Parameters<EventTarget["addEventListener"]>) {
        listening++
        super.addEventListener(...args)
      }
    })()
    const pubsub = createPubSub<{ event: [{ runEvents: { seq: number } }] }>({ eventTarget })
    let executions = 0
    const yoga = createYoga({
      schema: createSchema({
        typeDefs: `type Query { ok: Boolean } type Event { seq: Int! } type Subscription { runEvents: Event! }`,
        resolvers: {
          Event: { seq: (e: { seq: number }) => (executions++, e.seq) },
          Subscription: { runEvents: { subscribe: () => pubsub.subscribe("event") } }
        }
      }),
      plugins: [sharedSubscriptions]
    })
    const subscribe = async (query: string) => {
      const res = await yoga.fetch("http://yoga/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ query })
      })
      return res.body!.getReader()
    }
    const readers = await Promise.all([
      ...Array.from({ length: 5 }, () => subscribe("subscription { runEvents { seq } }")),
      subscribe("subscription { runEvents { n: seq } }")
    ])
    const decoder = new TextDecoder()
    // read from the start: the source subscribes to the pubsub once its stream is read
    const reading = readers.map(async (reader) => {
      let text = ""
      while ((text.match(/event: next/g) ?? []).length < 3) text += decoder.decode((await reader.read()).value)
      await reader.cancel()
      return text
    })
    await waitFor(async () => listening >= 2 || undefined) // each operation's one shared source, listening
    for (const seq of [1, 2, 3]) pubsub.publish("event", { runEvents: { seq } })
    const texts = await Promise.all(reading)
    expect(texts.every((t) => t.includes("\"seq\":3") || t.includes("\"n\":3"))).toBe(true)
    expect(executions).toBe(3 * 2) // 3 events × 2 operations, not × 6 subscribers
  })
})
