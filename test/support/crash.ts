import { Effect } from "effect"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import type { EventSinkService } from "../../src/journal/RunJournal.js"
import type { Service as RunStoreService } from "../../src/store/RunStore.js"

/**
 * The event sink of a process that dies: events are stored up to and including the first one `crashAfter`
 * matches; from then on nothing more reaches the store and the writer hangs, as a killed process's would.
 */
export const dyingSink = (store: RunStoreService, crashAfter?: (e: RunEvent) => boolean) => {
  let crashed = false
  let died = () => {}
  /** Settles when the process "dies": what a test waits on (not a poll). */
  const death = new Promise<void>((resolve) => (died = resolve))
  const sink: EventSinkService = {
    append: (events) => {
      if (crashed) return Effect.never
      const cut = crashAfter === undefined ? -1 : events.findIndex(crashAfter)
      const stored = cut < 0 ? events : events.slice(0, cut + 1)
      return store.append(stored).pipe(
        Effect.orDie,
        Effect.zipRight(
          cut < 0 ? Effect.void : Effect.sync(() => {
            crashed = true
            died()
          }).pipe(Effect.zipRight(Effect.never))
        )
      )
    }
  }
  return { sink, isCrashed: () => crashed, death }
}
