import type { RunEvent } from "../domain/RunEvent.js"
import type { Following } from "../kernel/RunEvents.js"

/** Where a feed's events come from: what is stored now, then a push per new event until stopped. */
export type FeedSource = (push: (event: RunEvent) => void) => Following

/**
 * A run's events as an async iterator for a GraphQL subscription: buffered per subscriber, ending after
 * RunFinished; `return()` (the client went away) stops it at once. Plain callbacks, no fiber per subscriber:
 * a server fans each event out to many subscribers.
 */
export const feed = (source: FeedSource, onClose: () => void): AsyncIterableIterator<RunEvent> => {
  const buffer: Array<RunEvent> = []
  let waiting: ((result: IteratorResult<RunEvent>) => void) | undefined
  let ended = false // nothing more will come: RunFinished was delivered, or the run had ended
  let closed = false
  const handle = source((event) => {
    if (closed) return
    if (waiting) {
      const resolve = waiting
      waiting = undefined
      resolve(deliver(event))
    } else buffer.push(event)
  })
  buffer.unshift(...handle.past)
  if (handle.finished) ended = true // the past is all there is
  const close = () => {
    if (closed) return
    closed = true
    handle.stop()
    buffer.length = 0
    onClose()
    if (waiting) {
      const resolve = waiting
      waiting = undefined
      resolve({ value: undefined, done: true })
    }
  }
  const deliver = (event: RunEvent): IteratorResult<RunEvent> => {
    if (event._tag === "RunFinished") ended = true
    return { value: event, done: false }
  }
  const iterator: AsyncIterableIterator<RunEvent> = {
    next: () => {
      if (!closed && buffer.length > 0) return Promise.resolve(deliver(buffer.shift()!))
      if (closed || ended) {
        close()
        return Promise.resolve({ value: undefined, done: true })
      }
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

/** Maps an iterator's values, keeping `return()` (so a client that leaves still stops the feed). */
export const mapIterator = <A, B>(source: AsyncIterableIterator<A>, f: (a: A) => B): AsyncIterableIterator<B> => {
  const iterator: AsyncIterableIterator<B> = {
    next: () => source.next().then((r) => (r.done ? { value: undefined, done: true } : { value: f(r.value), done: false })),
    return: () => (source.return ? source.return() : Promise.resolve({ value: undefined, done: true })).then(() => ({ value: undefined, done: true })),
    [Symbol.asyncIterator]: () => iterator
  }
  return iterator
}
