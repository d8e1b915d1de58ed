import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Stream } from "effect"
import type { Readable } from "node:stream"
import { readBytes, tooLargeMessage } from "./Body.js"

/** A handler of the fetch API: yoga's `fetch`, the MCP SDK's web-standard transport. */
export type WebHandler = (request: Request) => Promise<Response>

/** Headers of the connection, not of the request: a web Request carries none of them. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te"])

/** What GraphQL answers a request over the body limit (the connection closes: the rest is not read). */
export const payloadTooLarge = (maxBodyBytes: number) =>
  Response.json(
    { errors: [{ message: tooLargeMessage(maxBodyBytes), extensions: { code: "PAYLOAD_TOO_LARGE" } }] },
    { status: 413, headers: { connection: "close" } }
  )

/**
 * The request's body within the limit, by the edge's one reader (server/Body; the platform's own limit destroys the
 * socket, so no coded 413 could be sent); none for a GET or a HEAD.
 */
const bodyWithin = (request: HttpServerRequest.HttpServerRequest, maxBodyBytes: number) =>
  Effect.gen(function*() {
    if (request.method === "GET" || request.method === "HEAD") return { _tag: "none" } as const
    return yield* Effect.promise(() => readBytes(NodeHttpServerRequest.toIncomingMessage(request), maxBodyBytes))
  })

/** The request as a web Request for the handler, with the body already read and a signal the route aborts. */
const webRequest = (request: HttpServerRequest.HttpServerRequest, body: Buffer | undefined, signal: AbortSignal) => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (!HOP_BY_HOP.has(name)) headers.set(name, value)
  }
  return new Request(`http://${request.headers.host ?? "localhost"}${request.url}`, {
    method: request.method,
    headers,
    ...(body === undefined ? {} : { body: new Uint8Array(body) }),
    signal
  })
}

/** Where a route finds a Response's body as the Node stream it was made from, when it was (GraphQL's SSE). */
export type NodeBodyOf = (response: Response) => Readable | undefined

/** The handler's Response as the platform's, its body streamed (with backpressure); `done` once it has ended. */
const platformResponse = (response: Response, done: () => void, nodeBodyOf?: NodeBodyOf) => {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => (headers[name] = value))
  const contentType = headers["content-type"]
  if (response.body === null) {
    done()
    return HttpServerResponse.empty({ status: response.status, headers })
  }
  const body = response.body
  const node = nodeBodyOf?.(response)
  const chunks: Stream.Stream<Uint8Array, unknown> = node
    ? NodeStream.fromReadable<unknown, Uint8Array>(() => node, (e) => e)
    : Stream.fromReadableStream({ evaluate: () => body, onError: (e) => e })
  return HttpServerResponse.stream(
    chunks.pipe(Stream.ensuring(Effect.sync(done))),
    { status: response.status, headers, ...(contentType === undefined ? {} : { contentType }) }
  )
}

/**
 * A fetch-API handler as a route of the edge's router: the request handed over as a web Request (its body read
 * within the limit), the handler's Response sent back through the platform. The Request's signal aborts when the
 * response has ended or the client went away (a subscription's feed stops with it).
 */
export const webRoute = (
  handle: WebHandler,
  maxBodyBytes: number,
  tooLarge: (maxBodyBytes: number) => Response = payloadTooLarge,
  nodeBodyOf?: NodeBodyOf
) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* bodyWithin(request, maxBodyBytes)
    if (body._tag === "tooLarge") return platformResponse(tooLarge(maxBodyBytes), () => {})
    if (body._tag === "broken") return HttpServerResponse.empty({ status: 400 })
    const controller = new AbortController()
    const abort = () => controller.abort()
    const web = webRequest(request, body._tag === "bytes" ? body.value : undefined, controller.signal)
    const response = yield* Effect.promise(() => handle(web)).pipe(Effect.onInterrupt(() => Effect.sync(abort)))
    return platformResponse(response, abort, nodeBodyOf)
  })
