import { type ExecutionResult, GraphQLError } from "graphql"
import { type getSSEProcessor, isAsyncIterable, type Plugin } from "graphql-yoga"
import type { Socket } from "node:net"
import { Readable } from "node:stream"
import type { WebSocket } from "ws"
import { withSharedPayload } from "./SharedResults.js"

/**
 * A burst of a run's events reaches each subscriber in one socket write (issue 19, item 1): the events a run
 * publishes together arrive at a subscriber's feed in one synchronous loop, and are taken from it in microtasks, so
 * what a subscriber is sent before the next `process.nextTick` is one burst.
 */

/** Above this many bytes waiting on a socket, a send waits for its write again (a slow client holds back its feed). */
const SOCKET_HIGH_WATER = 1 << 20

/**
 * A burst of messages to one WebSocket in one write: the socket is corked from its first send until the burst's
 * microtasks are done (process.nextTick). graphql-ws waits for each message's write before it takes the next event,
 * which would cost a turn of the event loop per message of a burst; a send is answered at once while the socket has
 * room (`SOCKET_HIGH_WATER`), and waits for its write beyond it, so a slow client still holds back its own feed.
 */
export const corkedWebSocket = (socket: WebSocket) => {
  const send = socket.send.bind(socket)
  // ws has no public cork; its frames are written to this net.Socket, which ws itself corks around each frame
  const raw = (socket as unknown as { readonly _socket?: Socket })._socket
  let corked = false
  socket.send = ((data: unknown, cb?: (err?: Error) => void) => {
    const message = typeof data === "string" ? withSharedPayload(data) : data
    if (raw && !corked) {
      corked = true
      raw.cork()
      process.nextTick(() => {
        corked = false
        raw.uncork()
      })
    }
    if (cb === undefined || socket.bufferedAmount > SOCKET_HIGH_WATER) return send(message as string, cb!)
    send(message as string)
    queueMicrotask(cb)
  }) as typeof socket.send
}

type ResultProcessor = ReturnType<typeof getSSEProcessor>

/** An SSE keep-alive comment, as graphql-yoga sends every 12 s. */
const PING = ":\n\n"
const PING_INTERVAL_MS = 12_000

/** A result as its JSON, the shared one when it has it; errors without their internal extensions (as yoga does). */
const resultJson = (result: ExecutionResult & { stringify?: (r: unknown) => string }): string => {
  if (result.stringify) return result.stringify(result)
  if (result.errors === undefined && result.extensions === undefined) return JSON.stringify(result)
  const { http: _http, ...extensions } = (result.extensions ?? {}) as Record<string, unknown>
  return JSON.stringify({
    ...result,
    errors: result.errors?.map((e) => {
      const { extensions: own, ...error } = e.toJSON()
      const { http: _h, unexpected: _u, ...kept } = own ?? {}
      return Object.keys(kept).length > 0 ? { ...error, extensions: kept } : error
    }),
    extensions: Object.keys(extensions).length > 0 ? extensions : undefined
  })
}

/**
 * A subscription's results as an SSE body (graphql-sse's distinct connections mode, the format yoga writes:
 * `event: next` per result, then `event: complete`), the results of a burst in one chunk: one write per burst instead
 * of one per event. Reads the results only as fast as the client takes them (a slow client holds back its own feed,
 * which closes it when it falls too far behind). A failure of the feed (SUBSCRIBER_TOO_SLOW) is sent as a result with
 * its coded error, then the stream completes.
 */
export const sseBody = (iterator: AsyncIterator<ExecutionResult>): Readable => {
  let pending = PING
  let flushing = false
  let room: (() => void) | undefined
  let closed = false
  const body = new Readable({
    read: () => {
      room?.()
      room = undefined
    },
    destroy: (error, callback) => {
      closed = true
      clearInterval(ping)
      room?.()
      void iterator.return?.()
      callback(error)
    }
  })
  const flush = () => {
    flushing = false
    if (pending.length === 0 || closed) return
    body.push(pending)
    pending = ""
  }
  const write = (text: string) => {
    pending += text
    if (!flushing) {
      flushing = true
      process.nextTick(flush)
    }
  }
  const ping = setInterval(() => write(PING), PING_INTERVAL_MS)
  const pump = async () => {
    try {
      for (;;) {
        const next = await iterator.next()
        if (closed) return
        if (next.done) break
        write(`event: next\ndata: ${resultJson(next.value)}\n\n`)
        if (body.readableLength > body.readableHighWaterMark) await new Promise<void>((resolve) => (room = resolve))
      }
    } catch (e) {
      if (closed) return
      write(`event: next\ndata: ${resultJson({ errors: [asGraphQLError(e)] })}\n\n`)
    } finally {
      clearInterval(ping)
    }
    write("event: complete\ndata:\n\n")
    // after the flush that write scheduled: the stream ends once its last chunk is in
    process.nextTick(() => closed || body.push(null))
  }
  void pump()
  return body
}

/** An error of the feed as the client may see it: a coded GraphQLError as it is, anything else masked. */
const asGraphQLError = (e: unknown): GraphQLError =>
  e instanceof GraphQLError
    ? e
    : new GraphQLError("Unexpected error.", { extensions: { code: "INTERNAL_SERVER_ERROR" } })

/** `sseBody` as yoga's result processor. */
export const burstSse: ResultProcessor = (result, fetchAPI) =>
  // yoga's Response (@whatwg-node/fetch on Node) takes a Node stream as its body; the DOM's BodyInit type does not say so
  new fetchAPI.Response(
    sseBody((result as AsyncIterable<ExecutionResult>)[Symbol.asyncIterator]()) as unknown as BodyInit,
    {
      status: 200,
      headers: {
        "content-type": "text/event-stream",
        connection: "keep-alive",
        "cache-control": "no-cache",
        "content-encoding": "none"
      }
    }
  )

/** Subscriptions asked over SSE are answered by `burstSse` (yoga's own processor answers everything else). */
export const burstSseResults: Plugin = {
  onResultProcess({ request, result, setResultProcessor }) {
    if (isAsyncIterable(result) && (request.headers.get("accept") ?? "").includes("text/event-stream")) {
      setResultProcessor(burstSse, "text/event-stream")
    }
  }
}
