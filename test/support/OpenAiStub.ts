import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface StubReply {
  readonly status?: number
  readonly headers?: Record<string, string>
  /** The assistant message content (for 200 replies). */
  readonly content?: string
  readonly body?: unknown
  readonly delayMs?: number
  readonly usage?: { prompt_tokens: number; completion_tokens: number }
  /** finish_reason of the choice ("stop" unless given; "length": cut at max_tokens). */
  readonly finishReason?: string
  /** Drop the connection without a reply (a connection reset). */
  readonly reset?: boolean
}

/** A local OpenAI-compatible server serving /v1/chat/completions from a queue of replies. */
export interface OpenAiStub {
  readonly baseURL: string
  readonly requests: Array<any>
  /** Requests whose client went away before the reply was sent. */
  readonly disconnects: Array<any>
  /** Replaces the queue (the last reply repeats) and forgets earlier requests. */
  readonly reply: (...replies: Array<StubReply>) => void
  /** Answers each request by what it asks (its body): a reply, or undefined for the queue's next one. */
  readonly replyWith: (answer: (body: any) => StubReply | undefined) => void
  readonly close: () => Promise<void>
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => resolve(data))
  })

export const startOpenAiStub = async (): Promise<OpenAiStub> => {
  const queue: Array<StubReply> = []
  const requests: Array<any> = []
  const disconnects: Array<any> = []
  let answerer: ((body: any) => StubReply | undefined) | undefined
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404).end()
      return
    }
    const body = JSON.parse(await readBody(req))
    requests.push(body)
    const reply = answerer?.(body) ?? (queue.length > 1 ? queue.shift()! : queue[0] ?? { content: "{}" })
    let answered = false
    res.on("close", () => {
      if (!answered) disconnects.push(body)
    })
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
    if (reply.reset) {
      answered = true
      req.socket.destroy()
      return
    }
    if (res.destroyed) return
    answered = true
    const status = reply.status ?? 200
    const payload = reply.body ?? (status === 200
      ? {
        id: "chatcmpl-stub",
        object: "chat.completion",
        created: 0,
        model: body.model,
        choices: [{
          index: 0,
          finish_reason: reply.finishReason ?? "stop",
          message: { role: "assistant", content: reply.content ?? "{}" }
        }],
        usage: { ...(reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 }), total_tokens: 0 }
      }
      : { error: { message: `stub error ${status}`, type: "stub" } })
    res.writeHead(status, { "content-type": "application/json", ...reply.headers }).end(JSON.stringify(payload))
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as AddressInfo).port
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    disconnects,
    replyWith: (answer) => {
      answerer = answer
      requests.length = 0
    },
    reply: (...replies) => {
      answerer = undefined
      queue.splice(0, queue.length, ...replies)
      requests.length = 0
      disconnects.length = 0
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}
