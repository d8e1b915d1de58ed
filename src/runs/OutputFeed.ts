import type { OutputFollowing } from "../journal/RunOutput.js"
import type { LlmOutputDelta } from "../journal/RunOutput.js"

/** Where a subscription's pieces come from: the calls in progress now, then each piece until the run ends or `stop`. */
export type OutputSource = (onDelta: (delta: LlmOutputDelta) => void, onEnd: () => void) => OutputFollowing

/** How many pieces a subscriber may have waiting; past it the oldest are dropped (the stored calls have them all). */
export const OUTPUT_BUFFER_LIMIT = 1_000

/**
 * A run's live output as an async iterator for a GraphQL subscription: buffered per subscriber, the oldest pieces
 * dropped when a subscriber falls behind (never the run held back), ending when the run does; `return()` (the client
 * went away) stops it at once.
 */
export const outputFeed = <A>(
  source: OutputSource,
  view: (delta: LlmOutputDelta) => A,
  onClose: () => void,
  limit = OUTPUT_BUFFER_LIMIT
): AsyncIterableIterator<A> => {
  const buffer: Array<LlmOutputDelta> = []
  let waiting: ((result: IteratorResult<A>) => void) | undefined
  let ended = false
  let closed = false
  const finish = () => {
    if (closed) return
    closed = true
    handle.stop()
    onClose()
  }
  const settle = () => {
    if (!waiting) return
    const resolve = waiting
    waiting = undefined
    const next = buffer.shift()
    if (next !== undefined) resolve({ value: view(next), done: false })
    else {
      finish()
      resolve({ value: undefined, done: true })
    }
  }
  const handle = source((delta) => {
    if (closed) return
    buffer.push(delta)
    if (buffer.length > limit) buffer.shift()
    settle()
  }, () => {
    ended = true
    settle()
  })
  buffer.push(...handle.past)
  if (handle.finished) ended = true
  const iterator: AsyncIterableIterator<A> = {
    next: () => {
      const next = closed ? undefined : buffer.shift()
      if (next !== undefined) return Promise.resolve({ value: view(next), done: false })
      if (closed || ended) {
        finish()
        return Promise.resolve({ value: undefined, done: true })
      }
      return new Promise((resolve) => (waiting = resolve))
    },
    return: () => {
      finish()
      buffer.length = 0
      if (waiting) settle()
      return Promise.resolve({ value: undefined, done: true })
    },
    [Symbol.asyncIterator]: () => iterator
  }
  return iterator
}
