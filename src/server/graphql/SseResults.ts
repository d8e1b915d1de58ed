import { type ExecutionResult, GraphQLError } from "graphql"
import { type getSSEProcessor, isAsyncIterable, type Plugin } from "graphql-yoga"
import { Readable } from "node:stream"

type ResultProcessor = ReturnType<typeof getSSEProcessor>

/** An SSE keep-alive comment, as graphql-yoga sends every 12 s. */
const PING = ":\n\n"
const PING_INTERVAL_MS = 12_000

/** A result as its JSON; errors without their internal extensions (as yoga does). */
const resultJson = (result: ExecutionResult): string => {
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
export const sseResponse: ResultProcessor = (result, fetchAPI) =>
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

/**
 * Subscriptions asked over SSE are answered by `sseResponse` (yoga's own processor answers everything else): yoga's
 * errors the stream when a feed fails, where a subscriber too slow must be told where to resume from.
 */
export const sseResults: Plugin = {
  onResultProcess({ request, result, setResultProcessor }) {
    if (isAsyncIterable(result) && (request.headers.get("accept") ?? "").includes("text/event-stream")) {
      setResultProcessor(sseResponse, "text/event-stream")
    }
  }
}
