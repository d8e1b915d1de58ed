import { createClient as createSseClient } from "graphql-sse"
import { createClient as createWsClient } from "graphql-ws"
import { createInterface } from "node:readline"
import WebSocket from "ws"

/**
 * Subscribers in their own process (the server's event loop is not shared with them): each round, `count` clients of
 * one transport follow a run and the live latencies (arrival − the event's `at`) are printed as JSON.
 *
 * `StreamingClients.ts URL RUN_ID TRANSPORT COUNT [SHAPE]`: one round, then the process ends.
 * `StreamingClients.ts --rounds`: one round per line of JSON on stdin (`{ url, runId, transport, count, shape }`), its
 * latencies one line on stdout: the clients' JIT is warm after a first round, as a server's is after its first run
 * (a new process per round parsed its first round's 7,300 messages in code not yet compiled).
 */
type Shape = "events" | "payload" | "batches"
interface Round {
  readonly url: string
  readonly runId: string
  readonly transport: "sse" | "ws"
  readonly count: number
  readonly shape: Shape
}

// events: seq and at (the first bench); payload: the whole event as a client reads it; batches: runEventBatches
const queryOf = (shape: Shape) =>
  shape === "batches" ?
    `subscription($id: ID!) { runEventBatches(runId: $id) { seq type at payload } }`
    : shape === "payload" ?
    `subscription($id: ID!) { runEvents(runId: $id) { seq type at payload } }`
    : `subscription($id: ID!) { runEvents(runId: $id) { seq at } }`

const follow = async ({ count, runId, shape, transport, url }: Round) => {
  const query = queryOf(shape)
  const latencies: Array<number> = []
  await Promise.all(Array.from({ length: count }, async () => {
    const client: any = transport === "sse"
      ? createSseClient({ url })
      : createWsClient({ url: url.replace("http", "ws"), webSocketImpl: WebSocket })
    let joined: number | undefined
    for await (
      const r of client.iterate({ query, variables: { id: runId } }) as AsyncIterable<
        { data: { runEvents?: { at: string }; runEventBatches?: Array<{ at: string }> } }
      >
    ) {
      const arrived = Date.now()
      joined ??= arrived
      for (const e of r.data.runEventBatches ?? [r.data.runEvents!]) {
        const at = Date.parse(e.at)
        if (at > joined) latencies.push(arrived - at)
      }
    }
    client.dispose()
  }))
  return latencies
}

if (process.argv[2] === "--rounds") {
  for await (const line of createInterface({ input: process.stdin })) {
    process.stdout.write(JSON.stringify(await follow(JSON.parse(line) as Round)) + "\n")
  }
} else {
  const [url, runId, transport, count, shape = "events"] = process.argv.slice(2) as [
    string,
    string,
    "sse" | "ws",
    string,
    Shape
  ]
  process.stdout.write(JSON.stringify(await follow({ url, runId, transport, count: Number(count), shape })))
}
