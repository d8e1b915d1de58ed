import { GraphQLError } from "graphql"
import type { RunEvent } from "../domain/RunEvent.js"
import type { Following } from "../journal/RunJournal.js"
import { reachesEnd } from "../record/RunRecord.js"

/** Where a feed's events come from: what is stored now, then a push per new event until stopped. */
export type FeedSource = (push: (event: RunEvent) => void) => Following

/** How many live events a subscriber may have waiting before it is closed (it resumes with `fromSeq`). */
export const SUBSCRIBER_BUFFER_LIMIT = 10_000

/**
 * A run's events, each as `view` makes it, as an async iterator for a GraphQL subscription: buffered per subscriber, ending after
 * RunFinished; `return()` (the client went away) stops it at once. Plain callbacks, no fiber per subscriber:
 * a server fans each event out to many subscribers.
 */
export const feed = <A>(
  source: FeedSource,
  view: (event: RunEvent) => A,
  onClose: () => void,
  limit = SUBSCRIBER_BUFFER_LIMIT
): AsyncIterableIterator<A> => feedOf(source, (events) => view(events[0]!), onClose, limit, 1)

/** The most events one batch of `feedBatches` carries (a replay of a long run comes in several). */
export const MAX_BATCH = 1_000

/**
 * The same events as lists, one per burst (what the run's writer published together: a pass boundary's ten events
 * are one message, not ten), for clients that follow many runs (`runEventBatches`).
 */
export const feedBatches = <A>(
  source: FeedSource,
  view: (events: ReadonlyArray<RunEvent>) => A,
  onClose: () => void,
  limit = SUBSCRIBER_BUFFER_LIMIT
): AsyncIterableIterator<A> => feedOf(source, view, onClose, limit, MAX_BATCH)

/**
 * The feed's end, a turn of the event loop after its last event: every transport ends the subscription when its
 * iterator is done (SSE's `complete` event, graphql-ws's `complete` message). Written with the last result, the client
 * reads both at once and tears the subscription down (graphql-sse aborts its request) before its application is handed
 * that result: an SSE subscriber had the run's RunFinished several times later than its other events; with the end a
 * turn later, RunFinished comes as fast as they do (bench row 12).
 */
const afterLastEvent = <A>(end: () => A): Promise<A> => new Promise((resolve) => setImmediate(() => resolve(end())))

/** A reader that fell too far behind: closed, told where to subscribe again from. */
const tooSlow = (buffered: number, next: number) =>
  new GraphQLError(
    `this subscriber fell ${buffered} events behind the run and was closed; subscribe again with fromSeq: ${next}`,
    { extensions: { code: "SUBSCRIBER_TOO_SLOW", fromSeq: next } }
  )

const feedOf = <A>(
  source: FeedSource,
  view: (events: ReadonlyArray<RunEvent>) => A,
  onClose: () => void,
  limit: number,
  batch: number
): AsyncIterableIterator<A> => {
  const buffer: Array<RunEvent> = []
  // a reader that falls too far behind is closed instead of growing the server's memory without bound
  let behind: GraphQLError | undefined
  let bound = limit
  let waiting: ((result: IteratorResult<A>) => void) | undefined
  let ended = false // nothing more will come: RunFinished was delivered, or the run had ended
  let closed = false
  // a reader waiting is answered once its burst has all arrived (published in one synchronous loop: a microtask sees
  // all of it); not Stream.groupedWithin: callbacks cost far less than a fiber per follower (row 9), no time window
  let wake = false
  /** The reader waiting gets its result (once). */
  const settle = (result: IteratorResult<A>) => {
    const resolve = waiting
    waiting = undefined
    resolve?.(result)
  }
  const answer = () => {
    wake = false
    if (waiting && buffer.length > 0) settle(deliver())
  }
  const handle = source((event) => {
    if (closed || behind) return
    if (waiting && batch === 1) {
      buffer.push(event)
      answer()
    } else if (buffer.length < bound) {
      buffer.push(event)
      if (waiting && !wake) {
        wake = true
        queueMicrotask(answer)
      }
    } else {
      behind = tooSlow(buffer.length, buffer[0]?.seq ?? event.seq)
      handle.stop()
      buffer.length = 0
    }
  })
  buffer.unshift(...handle.past)
  bound += handle.past.length // the replay is the run's own log, already in memory; the bound is on live events
  if (handle.finished) ended = true // the past is all there is
  const close = () => {
    if (closed) return
    closed = true
    handle.stop()
    buffer.length = 0
    onClose()
    settle({ value: undefined, done: true })
  }
  /** The next message: one event, or the burst waiting (at most `batch` events). */
  const deliver = (): IteratorResult<A> => {
    const events = buffer.splice(0, batch)
    if (reachesEnd(events)) ended = true
    return { value: view(events), done: false }
  }
  const iterator: AsyncIterableIterator<A> = {
    next: () => {
      if (!closed && buffer.length > 0) return Promise.resolve(deliver())
      if (behind && !closed) {
        close()
        return Promise.reject(behind)
      }
      if (closed) return Promise.resolve({ value: undefined, done: true })
      if (ended) return afterLastEvent(() => (close(), { value: undefined, done: true }))
      return new Promise((resolve) => (waiting = resolve))
    },
    return: () => {
      close()
      return Promise.resolve({ value: undefined, done: true })
    },
    [Symbol.asyncIterator]: () => iterator
  }
  return iterator
}
