import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { cutTokens } from "./tokens.js"

/**
 * A local server of Gemini's API as Google's reference publishes it, for `@google/genai`: POST
 * `/v1beta/models/{model}:streamGenerateContent?alt=sse` answered as server-sent events, each chunk a
 * GenerateContentResponse (`candidates[0].content.parts`, thoughts marked `thought: true`, `finishReason` on the last)
 * with `usageMetadata` as a running total (`promptTokenCount`, `candidatesTokenCount`, `thoughtsTokenCount`,
 * `cachedContentTokenCount`); errors in its shape (`{error: {code, message, status, details}}`). Its own count (cl100k).
 */
export interface GeminiReply {
  readonly status?: number
  readonly message?: string
  readonly reason?: string
  readonly text?: string
  readonly thoughts?: string
  /** Of the prompt's tokens, those the stub says it read from cached content. */
  readonly cached?: number
  readonly finishReason?: string
}

export interface GeminiBill {
  readonly prompt: number
  readonly cached: number
  readonly output: number
  readonly thoughts: number
}

export interface GeminiStub {
  readonly baseURL: string
  readonly requests: Array<{ readonly path: string; readonly body: any }>
  readonly bills: Array<GeminiBill>
  readonly replyWith: (answer: (body: any) => GeminiReply) => void
  readonly close: () => Promise<void>
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => resolve(data))
  })

export const startGeminiStub = async (): Promise<GeminiStub> => {
  const requests: Array<{ path: string; body: any }> = []
  const bills: Array<GeminiBill> = []
  let answer: (body: any) => GeminiReply = () => ({ text: "{}" })
  const server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req) || "{}")
    requests.push({ path: req.url ?? "", body })
    const reply = answer(body)
    if (reply.status && reply.status !== 200) {
      res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify({
        error: {
          code: reply.status,
          message: reply.message ?? "error",
          status: reply.status === 400 ? "INVALID_ARGUMENT" : reply.status === 503 ? "UNAVAILABLE" : "NOT_FOUND",
          ...(reply.reason
            ? { details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: reply.reason }] }
            : {})
        }
      }))
      return
    }
    const prompt = cl100k(JSON.stringify(body.contents ?? [])) + cl100k(JSON.stringify(body.systemInstruction ?? ""))
    // maxOutputTokens bounds thoughts and answer together (Gemini 2.5 and later): thinking first, the answer cut after
    const limit: number = body.generationConfig?.maxOutputTokens ?? Number.POSITIVE_INFINITY
    const thoughts = cutTokens(reply.thoughts ?? "", limit)
    const full = reply.text ?? "{}"
    const text = cutTokens(full, limit - (thoughts ? cl100k(thoughts) : 0))
    const stopped = text.length < full.length ? "MAX_TOKENS" : undefined
    const bill = { prompt, cached: reply.cached ?? 0, output: cl100k(text), thoughts: thoughts ? cl100k(thoughts) : 0 }
    bills.push(bill)
    res.writeHead(200, { "content-type": "text/event-stream" })
    const chunk = (parts: Array<object>, outputSoFar: number, thoughtsSoFar: number, finish?: string) =>
      res.write(`data: ${
        JSON.stringify({
          candidates: [{ content: { role: "model", parts }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
          modelVersion: "gemini-2.5-flash",
          usageMetadata: {
            promptTokenCount: bill.prompt,
            candidatesTokenCount: outputSoFar,
            ...(thoughtsSoFar ? { thoughtsTokenCount: thoughtsSoFar } : {}),
            ...(bill.cached ? { cachedContentTokenCount: bill.cached } : {}),
            totalTokenCount: bill.prompt + outputSoFar + thoughtsSoFar
          }
        })
      }\r\n\r\n`)
    if (thoughts) chunk([{ text: thoughts, thought: true }], 0, bill.thoughts)
    const pieces = text.match(/[\s\S]{1,16}/g) ?? [""]
    pieces.forEach((piece, i) =>
      chunk(
        [{ text: piece }],
        i === pieces.length - 1 ? bill.output : cl100k(pieces.slice(0, i + 1).join("")),
        bill.thoughts,
        i === pieces.length - 1 ? stopped ?? reply.finishReason ?? "STOP" : undefined
      )
    )
    res.end()
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
