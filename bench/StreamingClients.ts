import { createClient as createSseClient } from "graphql-sse"
import { createClient as createWsClient } from "graphql-ws"
import WebSocket from "ws"

/** Subscribers in their own process (the server's event loop is not shared with them): prints live latencies as JSON. */
const [url, runId, transport, count, shape = "events"] = process.argv.slice(2) as [
  string,
  string,
  "sse" | "ws",
  string,
  "events" | "payload" | "batches"
]
// events: seq and at (the first bench); payload: the whole event as a client reads it; batches: runEventBatches
const query = shape === "batches" ?
  `subscription($id: ID!) { runEventBatches(runId: $id) { seq type at payload } }`
  : shape === "payload" ?
  `subscription($id: ID!) { runEvents(runId: $id) { seq type at payload } }`
  : `subscription($id: ID!) { runEvents(runId: $id) { seq at } }`
const latencies: Array<number> = []
await Promise.all(Array.from({ length: Number(count) }, async () => {
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
process.stdout.write(JSON.stringify(latencies))
