import { Effect, Layer } from "effect"
import { createPubSub, createSchema, createYoga } from "graphql-yoga"
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { createInterface } from "node:readline"
import { WebSocketServer } from "ws"
import type { RunEvent } from "../src/domain/RunEvent.js"
import { serve } from "../src/launch/App.js"
import { graphqlWs } from "../src/server/graphql/GraphQLWs.js"
import { RunStore } from "../src/store/RunStore.js"
import { streamingScript } from "./Streaming.js"
import { engine, median, memoryStore, percentile } from "./support.js"

type Shape = "payload" | "batches"

/**
 * The subscribers' process of one side of the comparison: one process for its warm-up round and its measured rounds,
 * so that its clients parse the measured rounds in compiled code, as the side's server serves them warm. A new process
 * per round timed its own first parse of 7,300 messages: at 100 subscribers over SSE, the server had written an
 * event to all of them 2–6 ms after its emission, the clients had it 4–45 ms after (per-event socket and client
 * timestamps, one run).
 */
const clientProcess = () => {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", new URL("./StreamingClients.ts", import.meta.url).pathname, "--rounds"],
    { stdio: ["pipe", "pipe", "inherit"] }
  )
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return {
    round: async (url: string, runId: string, transport: "sse" | "ws", count: number, shape: Shape) => {
      child.stdin.write(JSON.stringify({ url, runId, transport, count, shape }) + "\n")
      const line = await lines.next()
      if (line.done) throw new Error(`the clients' process ended (exit code ${child.exitCode})`)
      return JSON.parse(line.value) as Array<number>
    },
    close: () => void child.kill()
  }
}

const figures = (latencies: Array<number>) => ({
  deliveries: latencies.length,
  p50: percentile(latencies, 50),
  p99: percentile(latencies, 99)
})

/** Each figure's median over the rounds (this machine moves a single round's p99 by up to 2×). */
const medianOf = (rounds: ReadonlyArray<ReturnType<typeof figures>>) => ({
  deliveries: median(rounds.map((r) => r.deliveries)),
  p50: median(rounds.map((r) => r.p50)),
  p99: median(rounds.map((r) => r.p99)),
  p99s: rounds.map((r) => r.p99)
})

/**
 * Aeon: `subscribers` clients of one transport follow a run (each event, or each burst with runEventBatches). One
 * server: a first run, not measured, warms it up (the JIT compiles the engine and the fan-out as a server that has
 * run before has them), then the measured runs, each followed by a new set of clients in the same clients' process.
 */
export const aeon = async (
  transport: "sse" | "ws",
  subscribers: number,
  shapes: ReadonlyArray<Shape>,
  rounds: number
) => {
  const app = await serve({ port: 0, host: "127.0.0.1", maxConcurrentRuns: 4 }, {
    engine: engine(streamingScript as any),
    database: memoryStore as Layer.Layer<any, any>
  })
  const clients = clientProcess()
  const follow = async (shape: Shape) => {
    const runId = `peer-${transport}-${shape}-${Date.now()}`
    await fetch(app.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `mutation($i: RunTaskInput!) { runTask(input: $i) { id } }`,
        variables: { i: { task: "Compute the running sums", mode: "FULL", runId, budget: { ttl: 2 } } }
      })
    }).then((r) => r.json())
    const latencies = await clients.round(app.url, runId, transport, subscribers, shape)
    const events = await app.runtime.runPromise(Effect.flatMap(RunStore, (s) => s.events(runId)) as any) as Array<
      RunEvent
    >
    return { ...figures(latencies), events }
  }
  try {
    for (const shape of shapes) await follow(shape) // the server and the clients' process warm, each shape once
    const measured = shapes.map(() => [] as Array<Awaited<ReturnType<typeof follow>>>)
    for (let round = 0; round < rounds; round++) {
      for (const [i, shape] of shapes.entries()) measured[i]!.push(await follow(shape))
    }
    return measured.map((figures) => ({ ...medianOf(figures), events: figures[0]!.events }))
  } finally {
    clients.close()
    await app.stop()
  }
}

/**
 * The floor: bare graphql-yoga with its in-memory createPubSub and graphql-ws beside it, publishing the same events
 * (same payloads, same bursts: events Aeon stamped in the same millisecond go out together, the gaps between bursts
 * kept) once every client has subscribed. Each event's `at` is the time it is published, as Aeon's is.
 */
const bare = async (
  transport: "sse" | "ws",
  subscribers: number,
  recorded: ReadonlyArray<RunEvent>,
  rounds: number
) => {
  const pubsub = createPubSub<{ event: [Record<string, unknown>] }>()
  let subscribed = 0
  let everyone: () => void = () => {}
  const yoga = createYoga({
    schema: createSchema({
      typeDefs: `scalar JSON
        type Event { seq: Int! type: String! at: String! payload: JSON }
        type Query { ok: Boolean }
        type Subscription { runEvents(runId: ID!): Event! }`,
      resolvers: {
        Subscription: {
          runEvents: {
            subscribe: async function*() {
              const source = pubsub.subscribe("event")
              if (++subscribed === subscribers) everyone()
              for await (const e of source) {
                yield { runEvents: e }
                if (e.type === "RunFinished") return
              }
            }
          }
        }
      }
    }),
    logging: false
  })
  const server = createServer(yoga)
  const wss = new WebSocketServer({ server, path: "/graphql" })
  const ws = graphqlWs(yoga, wss, { authenticate: () => ({}), context: () => ({}) })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`
  const clients = clientProcess()
  const publish = async () => {
    subscribed = 0
    const ready = new Promise<void>((r) => (everyone = r))
    const collected = clients.round(url, "bare", transport, subscribers, "payload")
    await ready
    let previous = recorded[0]?.at ?? 0
    for (const e of recorded) {
      if (e.at > previous) await new Promise((r) => setTimeout(r, e.at - previous))
      previous = e.at
      const { _tag, at: _at, runId: _runId, seq, ...payload } = e
      pubsub.publish("event", { seq, type: _tag, at: new Date().toISOString(), payload })
    }
    return figures(await collected)
  }
  try {
    await publish() // warm-up, as Aeon's first run
    const measured = []
    for (let round = 0; round < rounds; round++) measured.push(await publish())
    return medianOf(measured)
  } finally {
    clients.close()
    await ws.dispose()
    wss.close()
    server.closeAllConnections()
    await new Promise<void>((r) => server.close(() => r()))
  }
}

/**
 * Delivery latency through Aeon and through bare yoga with the same events, same transport and subscribers, each
 * warmed up by a first run, then `rounds` measured runs (figures are the medians over the rounds).
 */
export const fanOutPeer = async (transport: "sse" | "ws", subscribers: number, rounds: number) => {
  const [own, batches] = await aeon(transport, subscribers, ["payload", "batches"], rounds)
  const floor = await bare(transport, subscribers, own!.events, rounds)
  return {
    transport,
    subscribers,
    rounds,
    events: own!.events.length,
    aeon: { deliveries: own!.deliveries, p50: own!.p50, p99: own!.p99, p99s: own!.p99s },
    bareYoga: floor,
    batches: { deliveries: batches!.deliveries, p50: batches!.p50, p99: batches!.p99, p99s: batches!.p99s },
    ratioP99: own!.p99 / Math.max(1, floor.p99)
  }
}
