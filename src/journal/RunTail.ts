import { Context } from "effect"
import type { RunEvent } from "../domain/RunEvent.js"
import { endsRun, reachesEnd } from "../record/RunRecord.js"
import * as Fanout from "../support/Fanout.js"
import type { LlmOutputDelta } from "./RunOutput.js"

/** A follower's events: its replay now, then `onEvent` with each later one until `stop` (or the run's end). */
export interface Following {
  readonly past: ReadonlyArray<RunEvent>
  /** The run has ended within `past`: nothing more will come. */
  readonly finished: boolean
  readonly stop: () => void
}

/** A follower that has joined the tail and waits for its replay: what is published meanwhile waits in it. */
export interface Joining {
  /** Its replay, read since it joined: the Following (the replay, then what came meanwhile, each event once). */
  readonly start: (past: ReadonlyArray<RunEvent>, onEvent: (event: RunEvent) => void) => Following
  readonly stop: () => void
}

/**
 * "Replay, then follow live" — the one implementation, wherever a run's events come from. A run's tail hands what is
 * published to each follower, which takes the events by seq: the next one after its last, each once, none skipped
 * (an event it has is dropped, one past a gap waits for a read that fills it). Who publishes differs: a run executing
 * here publishes each event once it is stored (journal/RunJournal; every attempt of the run into the same tail,
 * runs/RunJournals), a run executing on another server publishes what a store read past `behind()` found
 * (cluster/EventNotifications, woken by a NOTIFY). Plain callbacks, no fiber per follower (bench row 9); a follower
 * that throws is dropped, the others go on.
 */
export interface RunTail {
  /** Hands `events` (in seq order) to every follower, in one synchronous step. */
  readonly publish: (events: ReadonlyArray<RunEvent>) => void
  /** A follower from `fromSeq`, joining now: its replay is read after this (from memory or from the store). */
  readonly join: (fromSeq: number) => Joining
  /** Joins with a replay read in the same synchronous step (from memory: nothing can be published in between). */
  readonly follow: (fromSeq: number, past: ReadonlyArray<RunEvent>, onEvent: (event: RunEvent) => void) => Following
  /**
   * The last event every follower that has started has (a reader reads past it; one still reading its replay takes
   * what is published meanwhile after it); undefined while none has.
   */
  readonly behind: () => number | undefined
  /** The last event the furthest follower that has started has; undefined while none has. */
  readonly ahead: () => number | undefined
  readonly size: () => number
}

interface Cursor {
  /** The follower's last event (seqs start at 1). */
  taken: number
  /** What was published before its replay was read, by seq; undefined once it has started. */
  early: Map<number, RunEvent> | undefined
  onEvent: (event: RunEvent) => void
}

/** The events of `from` that follow `taken` by seq (each once), and the last of them. */
const following = (from: Iterable<RunEvent>, taken: number): { taking: ReadonlyArray<RunEvent>; taken: number } => {
  const taking: Array<RunEvent> = []
  for (const e of from) {
    if (e.seq === taken + 1) {
      taking.push(e)
      taken = e.seq
    }
  }
  return { taking, taken }
}

export interface TailOptions {
  /** Told when its last follower has left. */
  readonly onEmpty?: (() => void) | undefined
}

/** An event offered to a follower: kept while it has not started, else handed on in order (false: it threw, it leaves). */
const offer = (cursor: Cursor, event: RunEvent) => {
  if (cursor.early) {
    if (event.seq > cursor.taken) cursor.early.set(event.seq, event)
    return true
  }
  if (event.seq !== cursor.taken + 1) return true
  cursor.taken = event.seq
  try {
    cursor.onEvent(event)
    return true
  } catch {
    return false
  }
}

/** The least or the greatest last event of the followers that have started. */
const extreme = (cursors: ReadonlySet<Cursor>, pick: (a: number, b: number) => number) => {
  let found: number | undefined
  for (const c of cursors) {
    if (!c.early) found = found === undefined ? c.taken : pick(found, c.taken)
  }
  return found
}

export const make = (options: TailOptions = {}): RunTail => {
  const cursors = new Set<Cursor>()
  /** The seq of the run's end, once it was published: a follower already past it has nothing more to wait for. */
  let endSeq: number | undefined
  const leave = (cursor: Cursor) => {
    if (cursors.delete(cursor) && cursors.size === 0) options.onEmpty?.()
  }

  const join = (fromSeq: number): Joining => {
    // a follower from 0 (a subscription's default) waits for seq 1
    const cursor: Cursor = { taken: Math.max(fromSeq, 1) - 1, early: new Map(), onEvent: () => {} }
    cursors.add(cursor)
    const stop = () => leave(cursor)
    return {
      stop,
      start: (past, onEvent) => {
        const early = cursor.early ?? new Map<number, RunEvent>()
        // a replay read from memory is already the events that follow (one copy, not two, per follower)
        const from = cursor.taken
        const replay = past.length === 0 || (past[0]!.seq === from + 1 && past.at(-1)!.seq === from + past.length)
          ? { taking: past, taken: past.at(-1)?.seq ?? from }
          : following(past, from)
        let taken = replay.taken
        const meanwhile: Array<RunEvent> = []
        for (let next = early.get(taken + 1); next; next = early.get(taken + 1)) {
          meanwhile.push(next)
          taken = next.seq
        }
        const pastEvents = meanwhile.length === 0 ? replay.taking : [...replay.taking, ...meanwhile]
        cursor.taken = taken
        cursor.early = undefined
        cursor.onEvent = onEvent
        const finished = reachesEnd(pastEvents) || (endSeq !== undefined && taken >= endSeq)
        if (finished) stop()
        return { past: pastEvents, finished, stop }
      }
    }
  }

  return {
    publish: (events) => {
      const last = events.at(-1)
      if (last && endsRun(last)) endSeq = last.seq
      for (const cursor of cursors) {
        for (const event of events) {
          if (!offer(cursor, event)) {
            leave(cursor)
            break
          }
        }
      }
    },
    join,
    follow: (fromSeq, past, onEvent) => join(fromSeq).start(past, onEvent),
    behind: () => extreme(cursors, Math.min),
    ahead: () => extreme(cursors, Math.max),
    size: () => cursors.size
  }
}

interface Held {
  readonly tail: RunTail
  /** The followers of the run's live output, from one attempt to the next. */
  readonly output: Fanout.Fanout<LlmOutputDelta>
  attempts: number
}

/** What an attempt beginning here publishes into: its run's tail and its live output's followers. */
export interface Attached {
  readonly tail: RunTail
  readonly output: Fanout.Fanout<LlmOutputDelta>
}

/**
 * The tails of the runs a process executes, one per run whatever attempt appends to it: an attempt that ended waiting
 * for its store leaves its followers on the tail, and the attempt taking the run up again publishes into it — a
 * follower sees one run, not its attempts.
 */
export interface Tails {
  /** The run's tail for an attempt beginning here: the one its followers follow already, or a new one. */
  readonly attach: (runId: string) => Attached
  /** The attempt has ended: the tail goes once the run has, or once nobody follows it. */
  readonly detach: (runId: string, finished: boolean) => void
  /** The run's tail, while an attempt runs here or someone follows a run waiting to be taken up again here. */
  readonly get: (runId: string) => RunTail | undefined
}

export class RunTails extends Context.Tag("aeon/RunTails")<RunTails, Tails>() {}

export const makeTails = (): Tails => {
  const held = new Map<string, Held>()
  const attach = (runId: string) => {
    const found = held.get(runId)
    if (found) {
      found.attempts++
      return found
    }
    const entry: Held = {
      attempts: 1,
      output: Fanout.make(),
      tail: make({
        onEmpty: () => {
          if (entry.attempts === 0 && held.get(runId) === entry) held.delete(runId)
        }
      })
    }
    held.set(runId, entry)
    return entry
  }
  return {
    attach,
    detach: (runId, finished) => {
      const entry = held.get(runId)
      if (!entry) return
      entry.attempts = Math.max(0, entry.attempts - 1)
      if (entry.attempts === 0 && (finished || entry.tail.size() === 0)) held.delete(runId)
    },
    get: (runId) => held.get(runId)?.tail
  }
}
