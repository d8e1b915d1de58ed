import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as OpenAi from "../../src/llm/OpenAi.js"
import type { ModelPrice } from "../../src/llm/Pricing.js"

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
  /** Of the prompt tokens, those reported as read from the prompt cache (usage.prompt_tokens_details.cached_tokens). */
  readonly cachedTokens?: number
  /** A streamed reply's chunk size in characters (8 unless given) and the pause between chunks. */
  readonly chunkChars?: number
  readonly chunkDelayMs?: number
  /** A streamed reply stops after this many chunks and never ends (until the client goes away). */
  readonly stallAfterChunks?: number
  /** Refuse streamed requests with a 400 naming `stream` (an endpoint that cannot stream). */
  readonly refuseStream?: boolean
  /** Answer a streamed request with one JSON body (content-type application/json), as some gateways do. */
  readonly jsonToStream?: boolean
  /**
   * The usage the reply reports: the stub's bill (`billed`, counted with another tokenizer than Aeon's: cl100k over
   * the whole request), none at all (`absent`), zeros (`zero`) or not numbers (`nan`). `usage` wins when given.
   */
  readonly report?: "billed" | "absent" | "zero" | "nan"
}

/** A file's bytes (a data URL) are billed as a file, not tokenized as text (a 5 MB file would overflow the tokenizer). */
const FILE_TOKENS = 1_600
const withoutFileBytes = (_key: string, v: unknown) => (typeof v === "string" && v.startsWith("data:") ? "" : v)
const filesIn = (messages: unknown) => (JSON.stringify(messages).match(/"data:/g) ?? []).length

/** What a provider bills for a request and its answer: one tokenizer over the whole request (messages, format). */
export const billOf = (body: any, content: string) => ({
  prompt_tokens: cl100k(JSON.stringify(body.messages, withoutFileBytes)) + filesIn(body.messages) * FILE_TOKENS +
    (body.response_format
      ? cl100k(JSON.stringify(body.response_format))
      : 0) +
    3,
  completion_tokens: cl100k(content)
})

/** A local OpenAI-compatible server serving /v1/chat/completions from a queue of replies. */
export interface OpenAiStub {
  readonly baseURL: string
  readonly requests: Array<any>
  /** Requests whose client went away before the reply was sent. */
  readonly disconnects: Array<any>
  /** Each streamed chunk's text, as it left the stub, with the time it left (performance.now()) and its prompt. */
  readonly sentChunks: Array<{ readonly text: string; readonly at: number; readonly prompt?: string | undefined }>
  /** What the stub billed for each answered request (its own count, whatever the reply reported). */
  readonly billed: Array<{ readonly prompt_tokens: number; readonly completion_tokens: number }>
  /** Replaces the queue (the last reply repeats) and forgets earlier requests. */
  readonly reply: (...replies: Array<StubReply>) => void
  /** Answers each request by what it asks (its body): a reply, or undefined for the queue's next one. */
  readonly replyWith: (answer: (body: any) => StubReply | undefined) => void
  /** Settles once `holds` is true of what the stub has seen (checked as each request comes and each client leaves). */
  readonly until: (holds: () => boolean) => Promise<void>
  readonly close: () => Promise<void>
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => resolve(data))
  })

const usageOf = (reply: StubReply, body: any) => {
  if (reply.usage === undefined && reply.report === "absent") return undefined
  const counted = reply.usage ??
    (reply.report === "zero"
      ? { prompt_tokens: 0, completion_tokens: 0 }
      : reply.report === "nan"
      ? { prompt_tokens: "NaN" as unknown as number, completion_tokens: null as unknown as number }
      : reply.report === "billed"
      ? billOf(body, reply.content ?? "{}")
      : { prompt_tokens: 10, completion_tokens: 5 })
  return {
    ...counted,
    total_tokens: 0,
    ...(reply.cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: reply.cachedTokens } } : {})
  }
}

/** A 200 reply as OpenAI streams it: server-sent chunks of the content, the finish reason, the usage, [DONE]. */
const streamReply = async (
  res: ServerResponse,
  body: any,
  reply: StubReply,
  sent: Array<{ text: string; at: number; prompt?: string | undefined }>
) => {
  const content = reply.content ?? "{}"
  const size = reply.chunkChars ?? 8
  const chunk = (delta: object, finish: string | null, extra: object = {}) => ({
    id: "chatcmpl-stub",
    object: "chat.completion.chunk",
    created: 0,
    model: body.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra
  })
  const write = (data: object) => res.write(`data: ${JSON.stringify(data)}\n\n`)
  res.writeHead(200, { "content-type": "text/event-stream", ...reply.headers })
  write(chunk({ role: "assistant", content: "" }, null))
  for (let i = 0, n = 0; i < content.length; i += size, n++) {
    if (reply.stallAfterChunks !== undefined && n >= reply.stallAfterChunks) return // never ends
    if (i > 0 && reply.chunkDelayMs) await new Promise((r) => setTimeout(r, reply.chunkDelayMs))
    if (res.destroyed) return
    const text = content.slice(i, i + size)
    sent.push({ text, at: performance.now(), prompt: body.response_format?.json_schema?.name })
    write(chunk({ content: text }, null))
  }
  write(chunk({}, reply.finishReason ?? "stop"))
  const usage = usageOf(reply, body)
  if (body.stream_options?.include_usage && usage !== undefined) {
    write({
      id: "chatcmpl-stub",
      object: "chat.completion.chunk",
      created: 0,
      model: body.model,
      choices: [],
      usage
    })
  }
  res.end("data: [DONE]\n\n")
}

export const startOpenAiStub = async (): Promise<OpenAiStub> => {
  const queue: Array<StubReply> = []
  const sentChunks: Array<{ text: string; at: number; prompt?: string | undefined }> = []
  const requests: Array<any> = []
  const disconnects: Array<any> = []
  const billed: Array<{ prompt_tokens: number; completion_tokens: number }> = []
  let answerer: ((body: any) => StubReply | undefined) | undefined
  let waiting: Array<{ readonly holds: () => boolean; readonly resolve: () => void }> = []
  const changed = () => {
    waiting = waiting.filter((w) => (w.holds() ? (w.resolve(), false) : true))
  }
  const until = (holds: () => boolean) =>
    new Promise<void>((resolve) => (holds() ? resolve() : waiting.push({ holds, resolve })))
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404).end()
      return
    }
    const body = JSON.parse(await readBody(req))
    requests.push(body)
    changed()
    const reply = answerer?.(body) ?? (queue.length > 1 ? queue.shift()! : queue[0] ?? { content: "{}" })
    let answered = false
    res.on("close", () => {
      if (!answered) disconnects.push(body)
      changed()
    })
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
    if (reply.reset) {
      answered = true
      req.socket.destroy()
      return
    }
    if (res.destroyed) return
    if ((reply.status ?? 200) === 200 && reply.body === undefined) billed.push(billOf(body, reply.content ?? "{}"))
    if (
      body.stream && (reply.status ?? 200) === 200 && reply.body === undefined && !reply.refuseStream &&
      !reply.jsonToStream
    ) {
      // answered once the stream has ended: a client that goes away in the middle is a disconnect
      await streamReply(res, body, reply, sentChunks)
      answered = res.writableEnded
      return
    }
    answered = true
    if (body.stream && reply.refuseStream) {
      res.writeHead(400, { "content-type": "application/json" }).end(
        JSON.stringify({ error: { message: "stream is not supported by this endpoint", type: "stub" } })
      )
      return
    }
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
        ...(usageOf(reply, body) === undefined ? {} : { usage: usageOf(reply, body) })
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
    sentChunks,
    billed,
    until,
    replyWith: (answer) => {
      answerer = answer
      requests.length = 0
      disconnects.length = 0
      sentChunks.length = 0
      billed.length = 0
    },
    reply: (...replies) => {
      answerer = undefined
      queue.splice(0, queue.length, ...replies)
      requests.length = 0
      disconnects.length = 0
      sentChunks.length = 0
      billed.length = 0
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}

/** The real OpenAI provider pointed at `stub`: short timeouts and backoff, `overrides` on top. */
export const stubModel = (stub: OpenAiStub, overrides: Partial<OpenAi.OpenAiOptions> = {}, price?: ModelPrice) =>
  OpenAi.make({
    baseURL: stub.baseURL,
    apiKey: "k",
    model: "gpt-4o-mini",
    timeoutMs: 5_000,
    maxRetries: 3,
    retryBaseMs: 5,
    ...overrides
  }, price)
