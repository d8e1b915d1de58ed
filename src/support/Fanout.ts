/**
 * Callbacks that receive, in order, what one source publishes — a run's events, its model calls' live output: plain
 * callbacks, no fiber per follower (bench row 9 measures Effect's PubSub with a fiber per follower far behind), and a
 * publisher that never waits on them. A follower that throws is dropped; the source and the
 * others go on. `end` tells each follower once, and later ones get nothing.
 */
export interface Fanout<A> {
  /** A follower: what it is handed, and what it is told at the end. Returns its `stop`. */
  readonly add: (onItem: (item: A) => void, onEnd?: () => void) => () => void
  /** Hands the items to every follower, each all of them in order, in one synchronous step. */
  readonly publish: (items: Iterable<A>) => void
  /** The source has ended: each follower is told, and dropped. */
  readonly end: () => void
  readonly size: () => number
}

interface Follower<A> {
  readonly onItem: (item: A) => void
  readonly onEnd: (() => void) | undefined
}

export const make = <A>(): Fanout<A> => {
  const followers = new Set<Follower<A>>()
  return {
    add: (onItem, onEnd) => {
      const follower: Follower<A> = { onItem, onEnd }
      followers.add(follower)
      return () => void followers.delete(follower)
    },
    publish: (items) => {
      for (const f of followers) {
        for (const item of items) {
          try {
            f.onItem(item)
          } catch {
            followers.delete(f)
            break
          }
        }
      }
    },
    end: () => {
      const ending = [...followers]
      followers.clear()
      for (const f of ending) {
        try {
          f.onEnd?.()
        } catch {
          // told; what it does with the end is its own
        }
      }
    },
    size: () => followers.size
  }
}
