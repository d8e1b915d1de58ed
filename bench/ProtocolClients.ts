import { HttpAgent } from "@ag-ui/client"
import { DefaultChatTransport, type UIMessage } from "ai"

/**
 * `ProtocolClients.ts BASE_URL RUN_ID PROTOCOL COUNT`: `COUNT` clients of one protocol, each its official client,
 * follow a run going on (in a process of their own: the server's event loop is not shared with them); the live
 * latencies (arrival − the run event's time, which each protocol carries: AG-UI's `timestamp`, the UI stream's
 * `data-cursor` part's `at`) print as JSON. Events of the run before a client joined are not counted.
 */
const [base, runId, protocol, count] = process.argv.slice(2) as [string, string, "ag-ui" | "ui-stream", string]

const agUi = async () => {
  const latencies: Array<number> = []
  const agent = new HttpAgent({ url: `${base}/ag-ui` })
  let joined: number | undefined
  await agent.runAgent({ runId }, {
    onEvent: ({ event }) => {
      const arrived = Date.now()
      joined ??= arrived
      if (event.timestamp !== undefined && event.timestamp > joined) latencies.push(arrived - event.timestamp)
    }
  })
  return latencies
}

const uiStream = async () => {
  const latencies: Array<number> = []
  const stream = await new DefaultChatTransport<UIMessage>({ api: `${base}/api/chat` }).reconnectToStream({
    chatId: runId
  })
  let joined: number | undefined
  const reader = stream!.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    const arrived = Date.now()
    joined ??= arrived
    if (value.type !== "data-cursor") continue
    const at = (value.data as { at?: number }).at
    if (at !== undefined && at > joined) latencies.push(arrived - at)
  }
  return latencies
}

/** The same protocol read as bytes (an SSE reader, JSON per event): what the server's delivery costs alone. */
const raw = async () => {
  const latencies: Array<number> = []
  const res = protocol === "ag-ui"
    ? await fetch(`${base}/ag-ui`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({
        threadId: "t",
        runId,
        messages: [],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {}
      })
    })
    : await fetch(`${base}/api/chat/${encodeURIComponent(runId)}/stream`)
  const decoder = new TextDecoder()
  let buffer = ""
  let joined: number | undefined
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
    const arrived = Date.now()
    joined ??= arrived
    buffer += decoder.decode(bytes, { stream: true })
    const frames = buffer.split("\n\n")
    buffer = frames.pop() ?? ""
    for (const frame of frames) {
      const data = frame.startsWith("data: ") ? frame.slice(6) : undefined
      if (!data || data === "[DONE]") continue
      const event = JSON.parse(data)
      const at = protocol === "ag-ui" ? event.timestamp : event.type === "data-cursor" ? event.data.at : undefined
      if (at !== undefined && at > joined) latencies.push(arrived - at)
    }
  }
  return latencies
}

const reader = process.argv[6] === "raw" ? raw : protocol === "ag-ui" ? agUi : uiStream
const all = await Promise.all(Array.from({ length: Number(count) }, () => reader()))
process.stdout.write(JSON.stringify(all.flat()))
