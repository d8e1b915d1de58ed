import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { createHash } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { cutTokens } from "./tokens.js"

/**
 * A local server of Anthropic's Messages API as its reference publishes it, for `@anthropic-ai/sdk`: POST /v1/messages
 * streamed as server-sent events (message_start with the usage of the input — `input_tokens` after the cache,
 * `cache_creation_input_tokens`, `cache_read_input_tokens` —, content blocks and their deltas, message_delta with the
 * cumulative `output_tokens` and the stop reason, message_stop), errors in its shape (`{type: "error", error: {type,
 * message}}`). Prompt caching as the API does it: a request's cache breakpoints (`cache_control` on system and message
 * blocks) mark prefixes; the longest prefix seen before is read, the rest up to the last breakpoint written — when
 * that prefix is at least the model's minimum. Its own count of tokens (cl100k), not Aeon's.
 */
export interface AnthropicReply {
  readonly status?: number
  readonly errorType?: string
  readonly message?: string
  readonly headers?: Record<string, string>
  /** The answer's text (a 200). */
  readonly text?: string
  /** Thinking written before the answer (a thinking block). */
  readonly thinking?: string
  readonly stopReason?: string
}

export interface Bill {
  readonly input: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly output: number
}

export interface AnthropicStub {
  readonly baseURL: string
  readonly requests: Array<any>
  readonly bills: Array<Bill>
  readonly replyWith: (answer: (body: any) => AnthropicReply) => void
  readonly close: () => Promise<void>
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => resolve(data))
  })

/** The text of a block list (or a string), in order. */
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((b: any) => (typeof b?.text === "string" ? b.text : JSON.stringify(b))).join("")
    : ""

/** The request's prefixes at its breakpoints, in order: their hashes and tokens (tools → system → messages). */
const breakpointsOf = (body: any) => {
  const parts: Array<{ text: string; breakpoint: boolean }> = []
  for (const t of body.tools ?? []) parts.push({ text: JSON.stringify(t), breakpoint: t.cache_control !== undefined })
  for (const b of Array.isArray(body.system) ? body.system : [{ text: body.system ?? "" }]) {
    parts.push({ text: b.text ?? "", breakpoint: b.cache_control !== undefined })
  }
  for (const m of body.messages ?? []) {
    for (const b of Array.isArray(m.content) ? m.content : [{ text: m.content }]) {
      parts.push({ text: `${m.role}:${textOf([b])}`, breakpoint: b.cache_control !== undefined })
    }
  }
  let prefix = ""
  const points: Array<{ hash: string; tokens: number }> = []
  for (const p of parts) {
    prefix += p.text
    if (p.breakpoint) points.push({ hash: createHash("sha256").update(prefix).digest("hex"), tokens: cl100k(prefix) })
  }
  return { points, total: cl100k(prefix) + 4 + (body.output_config ? cl100k(JSON.stringify(body.output_config)) : 0) }
}

const sse = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

/** The first object of a schema whose additionalProperties is not false, by its path (Claude refuses the format). */
const openObjectIn = (schema: unknown, path = ""): string | undefined => {
  if (schema === null || typeof schema !== "object") return undefined
  const o = schema as Record<string, unknown>
  if (o.type === "object" && o.additionalProperties !== false) return path || "/"
  for (const [k, v] of Object.entries(o)) {
    const inner = Array.isArray(v)
      ? v.map((x, i) => openObjectIn(x, `${path}/${k}/${i}`)).find((x) => x !== undefined)
      : openObjectIn(v, k === "properties" ? path : `${path}/${k}`)
    if (inner !== undefined) return inner
  }
  return undefined
}

export const startAnthropicStub = async (
  options: { readonly minCacheTokens?: number; readonly caching?: boolean } = {}
): Promise<AnthropicStub> => {
  const requests: Array<any> = []
  const bills: Array<Bill> = []
  const cached = new Set<string>()
  let answer: (body: any) => AnthropicReply = () => ({ text: "{}" })
  const server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req))
    requests.push(body)
    // the Messages API's published rule for output_config.format: every object closed
    const open = openObjectIn(body.output_config?.format?.schema)
    const reply: AnthropicReply = open !== undefined
      ? {
        status: 400,
        errorType: "invalid_request_error",
        message: `output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to ` +
          `false (at ${open})`
      }
      : answer(body)
    if (reply.status && reply.status !== 200) {
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers }).end(JSON.stringify({
        type: "error",
        error: { type: reply.errorType ?? "api_error", message: reply.message ?? "error" }
      }))
      return
    }
    const { points: marked, total } = breakpointsOf(body)
    // a server without prompt caching: every token at the input rate
    const points = options.caching === false ? [] : marked
    const min = options.minCacheTokens ?? 1024
    const read = [...points].reverse().find((p) => cached.has(p.hash))?.tokens ?? 0
    const last = points.at(-1)
    const write = last && last.tokens >= min && !cached.has(last.hash) ? last.tokens - read : 0
    for (const p of points) if (p.tokens >= min) cached.add(p.hash)
    // max_tokens bounds thinking and answer together: thinking first, the answer cut after
    const limit: number = body.max_tokens ?? Number.POSITIVE_INFINITY
    const thinking = cutTokens(reply.thinking ?? "", limit)
    const full = reply.text ?? "{}"
    const text = cutTokens(full, limit - (thinking ? cl100k(thinking) : 0))
    const bill = {
      input: total - read - write,
      cacheRead: read,
      cacheWrite: write,
      output: cl100k(text) + (thinking ? cl100k(thinking) : 0)
    }
    bills.push(bill)
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    res.write(sse("message_start", {
      message: {
        id: `msg_${requests.length}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: bill.input,
          cache_creation_input_tokens: bill.cacheWrite,
          cache_read_input_tokens: bill.cacheRead,
          output_tokens: 1
        }
      }
    }))
    let index = 0
    if (thinking) {
      res.write(sse("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }))
      res.write(sse("content_block_delta", { index, delta: { type: "thinking_delta", thinking } }))
      res.write(sse("content_block_delta", { index, delta: { type: "signature_delta", signature: "sig" } }))
      res.write(sse("content_block_stop", { index }))
      index++
    }
    res.write(sse("content_block_start", { index, content_block: { type: "text", text: "" } }))
    for (let i = 0; i < text.length; i += 12) {
      res.write(sse("content_block_delta", { index, delta: { type: "text_delta", text: text.slice(i, i + 12) } }))
    }
    res.write(sse("content_block_stop", { index }))
    res.write(sse("message_delta", {
      delta: {
        stop_reason: text.length < full.length ? "max_tokens" : reply.stopReason ?? "end_turn",
        stop_sequence: null
      },
      usage: { output_tokens: bill.output }
    }))
    res.end(sse("message_stop", {}))
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    bills,
    replyWith: (f) => void (answer = f),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())))
  }
}
