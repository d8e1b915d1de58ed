import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Readable } from "node:stream"

/** An SSE keep-alive comment, as graphql-yoga sends every 12 s. */
const PING = ":\n\n"
const PING_INTERVAL_MS = 12_000

export interface SseOptions {
  /** The frame a failure of the frames is told with (undefined: none), before the stream ends. */
  readonly onFailure: (thrown: unknown) => string | undefined
  /** The frame that ends the stream (GraphQL's `event: complete`), if any. */
  readonly end?: string | undefined
  /** A keep-alive comment first and every 12 s (GraphQL's subscriptions, as yoga does). */
  readonly keepAlive?: boolean | undefined
}

/**
 * The one SSE writer of the HTTP edge (GraphQL's subscriptions and every protocol's stream): frames as a response body,
 * the frames of a burst in one chunk — one write per burst instead of one per event. It reads the frames only as fast
 * as the client takes them (a slow client holds back its own feed, which closes it when it falls too far behind); a
 * client that goes away ends the frames (their iterator's `return`).
 */
export const sseBody = (frames: AsyncIterator<string>, options: SseOptions): Readable => {
  let pending = options.keepAlive ? PING : ""
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
      void frames.return?.()
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
    if (text === "") return
    pending += text
    if (!flushing) {
      flushing = true
      process.nextTick(flush)
    }
  }
  const ping = options.keepAlive ? setInterval(() => write(PING), PING_INTERVAL_MS) : undefined
  const pump = async () => {
    try {
      for (;;) {
        const next = await frames.next()
        if (closed) return
        if (next.done) break
        write(next.value)
        if (body.readableLength > body.readableHighWaterMark) await new Promise<void>((resolve) => (room = resolve))
      }
    } catch (e) {
      if (closed) return
      write(options.onFailure(e) ?? "")
    } finally {
      clearInterval(ping)
    }
    write(options.end ?? "")
    // after the flush that write scheduled: the stream ends once its last chunk is in
    process.nextTick(() => closed || body.push(null))
  }
  void pump()
  return body
}

/** The headers of every SSE response of the edge's (a proxy must not buffer it). */
const SSE_HEADERS = { "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no" }

/**
 * A protocol's stream as the router's response: `sseBody` of its frames, under its headers; the frames are given a
 * signal aborted when the body closes (ended, or the client gone: the platform's server then destroys it).
 */
export const sseResponse = (
  headers: Readonly<Record<string, string>>,
  frames: (signal: AbortSignal) => AsyncIterable<string>,
  onFailure: (thrown: unknown) => string | undefined
) => {
  const gone = new AbortController()
  const body = sseBody(frames(gone.signal)[Symbol.asyncIterator](), {
    onFailure: (e) => (gone.signal.aborted ? undefined : onFailure(e))
  })
  body.once("close", () => gone.abort())
  return HttpServerResponse.raw(body, { status: 200, headers: { ...SSE_HEADERS, ...headers } })
}
