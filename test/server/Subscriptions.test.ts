import { createClient as createSseClient } from "graphql-sse"
import { createClient as createWsClient } from "graphql-ws"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { PromptId } from "../../src/prompts/PromptId.js"
import { convergingScript, reasoned } from "../support/scripts.js"
import { gql, startServer, type TestServer, untilEvents, untilRun, untilStatus, waitFor } from "../support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer({
    script: { ...convergingScript(), [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 400 }] }
  })
}, 60_000)
afterAll(() => server?.stop())

const SUB =
  `subscription($runId: ID!, $fromSeq: Int) { runEvents(runId: $runId, fromSeq: $fromSeq) { seq type ... on RunFinishedEvent { status } } }`
type Ev = { seq: number; type: string; status?: string }

const clients = {
  sse: () => {
    const c = createSseClient({ url: server.url, headers: { "x-graphql-yoga-csrf": "1" } })
    return {
      iterate: (variables: object) => c.iterate<{ runEvents: Ev }>({ query: SUB, variables: variables as any }),
      dispose: () => c.dispose()
    }
  },
  ws: () => {
    const c = createWsClient({ url: server.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
    return {
      iterate: (variables: object) => c.iterate<{ runEvents: Ev }>({ query: SUB, variables: variables as any }),
      dispose: () => c.dispose()
    }
  }
}

const start = async () =>
  (await gql(server.url, `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`))
    .body.data.runTask.id as string
const collect = async (
  it: AsyncIterable<{ data?: { runEvents: Ev } | null }>,
  onEvent?: (e: Ev) => Promise<void> | void
) => {
  const seen: Array<Ev> = []
  for await (const r of it) {
    const e = r.data!.runEvents
    seen.push(e)
    await onEvent?.(e)
  }
  return seen
}
const storedSeqs = async (id: string) =>
  (await gql(server.url, `query($id: ID!) { run(id: $id) { events { seq } } }`, { id })).body.data.run.events.map((
    e: { seq: number }
  ) => e.seq) as Array<number>

for (const [name, make] of Object.entries(clients)) {
  describe(`runEvents over ${name}`, () => {
    it("follows a run live from 0 to its final event, with no gap and no duplicate", async () => {
      const client = make()
      const id = await start()
      const seen = await collect(client.iterate({ runId: id, fromSeq: 0 }))
      expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1))
      expect(seen.at(-1)).toMatchObject({ type: "RunFinished", status: "CONVERGED" })
      expect(seen.map((e) => e.seq)).toEqual(await storedSeqs(id))
      client.dispose()
    })

    it("replays a finished run from 0, and joins late from fromSeq", async () => {
      const client = make()
      const id = await start()
      // join late while it runs
      await untilEvents(server.url, id, (events) => (events.length >= 8 ? true : undefined))
      const late = await collect(client.iterate({ runId: id, fromSeq: 5 }))
      expect(late[0]!.seq).toBe(5)
      expect(late.map((e) => e.seq)).toEqual(late.map((_, i) => i + 5))
      expect(late.at(-1)!.type).toBe("RunFinished")
      // replay after the end
      const replay = await collect(client.iterate({ runId: id, fromSeq: 0 }))
      expect(replay.map((e) => e.seq)).toEqual(await storedSeqs(id))
      client.dispose()
    })

    it("ends with CANCELLED when the run is cancelled mid-run", async () => {
      const client = make()
      const id = await start()
      let cancelled = false
      const seen = await collect(client.iterate({ runId: id, fromSeq: 0 }), async (e) => {
        if (e.type === "StepStarted" && !cancelled) {
          cancelled = true
          const r = await gql(server.url, `mutation($id: ID!) { cancelRun(id: $id) { id status } }`, { id })
          expect(r.body.data.cancelRun.status).toBe("CANCELLED")
        }
      })
      expect(seen.at(-1)).toMatchObject({ type: "RunFinished", status: "CANCELLED" })
      client.dispose()
    })

    it("a client that goes away interrupts its subscription fiber (no leak)", async () => {
      const client = make()
      const id = await start()
      const iterator = client.iterate({ runId: id, fromSeq: 0 })[Symbol.asyncIterator]()
      await iterator.next()
      // its first event came: the subscription is open, and counted
      expect((await gql(server.url, "{ health { subscriptions } }")).body.data.health.subscriptions)
        .toBeGreaterThanOrEqual(1)
      await iterator.return?.()
      client.dispose()
      await waitFor(
        async () => ((await gql(server.url, "{ health { subscriptions } }")).body.data.health.subscriptions === 0
          ? true
          : undefined)
      )
    })
  })
}

it("an unknown run id is a RunNotFoundError for subscribers", async () => {
  const client = clients.sse()
  const results: Array<{ errors?: ReadonlyArray<{ message: string; extensions?: { code?: string } }> }> = []
  for await (const r of client.iterate({ runId: "nope", fromSeq: 0 })) results.push(r as any)
  expect(results[0]?.errors?.[0]).toMatchObject({
    message: "run nope does not exist",
    extensions: { code: "RunNotFoundError" }
  })
  client.dispose()
})

describe("runEventBatches (#19.1)", () => {
  const BATCHES =
    `subscription($runId: ID!, $fromSeq: Int) { runEventBatches(runId: $runId, fromSeq: $fromSeq) { seq type } }`
  for (const name of Object.keys(clients)) {
    it(`over ${name}: one message per burst; together the same gapless events, ending with RunFinished`, async () => {
      const raw = name === "sse" ?
        createSseClient({ url: server.url, headers: { "x-graphql-yoga-csrf": "1" } })
        : createWsClient({ url: server.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 })
      const id = await start()
      const batches: Array<Array<Ev>> = []
      for await (
        const r of (raw as any).iterate({ query: BATCHES, variables: { runId: id, fromSeq: 0 } }) as AsyncIterable<
          { data: { runEventBatches: Array<Ev> } }
        >
      ) batches.push(r.data.runEventBatches)
      const seqs = batches.flat().map((e) => e.seq)
      expect(seqs).toEqual(await storedSeqs(id))
      expect(seqs).toEqual(seqs.map((_, i) => i + 1))
      expect(batches.flat().at(-1)!.type).toBe("RunFinished")
      // bursts: fewer messages than events (a pass boundary's events travel together)
      expect(batches.length).toBeLessThan(seqs.length)
      expect(Math.max(...batches.map((b) => b.length))).toBeGreaterThan(1)
      // a replay of a finished run is one list
      const replay: Array<Array<Ev>> = []
      for await (
        const r of (raw as any).iterate({ query: BATCHES, variables: { runId: id, fromSeq: 3 } }) as AsyncIterable<
          { data: { runEventBatches: Array<Ev> } }
        >
      ) replay.push(r.data.runEventBatches)
      expect(replay).toHaveLength(1)
      expect(replay[0]!.map((e) => e.seq)).toEqual(seqs.slice(2))
      ;(raw as any).dispose()
    })
  }
})

describe("Run.plan", () => {
  it("is the plan as the run's steps have left it so far, while it runs, and the final plan after", async () => {
    const id = await start()
    const query = `query($id: ID!) { run(id: $id) { status plan { steps { stepId status } } } }`
    type Read = { status: string; plan: { steps: Array<{ stepId: string; status: string }> } | null }
    const live = await untilRun<Read>(
      server.url,
      id,
      (r) => r.status === "RUNNING" && r.plan?.steps.some((s) => s.status === "complete") === true,
      { query }
    )
    expect(live.plan!.steps.map((s) => s.stepId)).toEqual(["s1", "s2"])
    const done: Read = await untilStatus(server.url, id, "CONVERGED", { query })
    expect(done.plan!.steps.map((s) => s.status)).toEqual(["complete", "complete"])
  })
})

describe("a refused document over WebSocket", () => {
  it("is an error for that subscription only: the socket and its other subscriptions go on", async () => {
    let closed: unknown
    const client = createWsClient({
      url: server.url.replace("http", "ws"),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      on: { closed: (e) => (closed = e) }
    })
    const outcome = (query: string) =>
      new Promise<{ data?: unknown; errors?: ReadonlyArray<any> }>((resolve) => {
        let last: any
        client.subscribe({ query }, {
          next: (v) => (last = v),
          error: (errors) => resolve({ errors: Array.isArray(errors) ? errors : [errors] }),
          complete: () => resolve(last)
        })
      })
    try {
      // a run followed all along on the same socket
      const started = await gql(
        server.url,
        `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`
      )
      const followed: Array<string> = []
      const following = new Promise<void>((resolve, reject) =>
        client.subscribe({ query: `subscription { runEvents(runId: "${started.body.data.runTask.id}") { type } }` }, {
          next: (v: any) => void followed.push(v.data.runEvents.type),
          error: reject,
          complete: resolve
        })
      )
      const tooLong = await outcome(`{ ${Array.from({ length: 6000 }, () => "health { ok }").join(" ")} }`)
      expect(tooLong.errors?.[0]?.extensions?.code).toBe("QUERY_TOO_LONG")
      const typo = await outcome("{ health { ok }")
      expect(typo.errors?.[0]?.extensions?.code).toBe("GRAPHQL_PARSE_FAILED")
      expect(typo.errors?.[0]?.message).toMatch(/^Syntax Error/)
      expect(await outcome("{ health { ok } }")).toEqual({ data: { health: { ok: true } } })
      await following
      expect(followed.at(-1)).toBe("RunFinished")
      expect(closed).toBeUndefined()
    } finally {
      await client.dispose()
    }
  })
})
