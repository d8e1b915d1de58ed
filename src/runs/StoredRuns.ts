import { Effect, Option } from "effect"
import type { RunStatus } from "../domain/RunStatus.js"
import { Memories } from "../store/Memories.js"
import { Quotas } from "../store/QuotaLedger.js"
import { RunStore } from "../store/RunStore.js"
import { Threads } from "../store/Threads.js"

/**
 * What the CLI asks of the store in its own process, when no server holds it (the server's API answers the same
 * questions beside one: cli/ViaServer, cli/OnServer): a run's events, the runs, memories, quotas, threads and their
 * erasure. The CLI reads no store table itself: it asks here, with the store's layer (Database) provided.
 */
export type { StoredRun } from "../store/RunStore.js"
export type { ThreadRow, ThreadTurn } from "../store/Threads.js"

/** A run's stored events; undefined when there is no such run. */
export const runEvents = (runId: string) =>
  Effect.flatMap(
    RunStore,
    (store) =>
      Effect.flatMap(
        store.getRun(runId),
        (run) => (Option.isNone(run) ? Effect.succeed(undefined) : store.events(runId))
      )
  )

/** The newest runs, filtered. */
export const listRuns = (
  filters: { readonly userId?: string | undefined; readonly status?: RunStatus | undefined; readonly first: number }
) => Effect.map(Effect.flatMap(RunStore, (store) => store.listRuns(filters)), (page) => page.runs)

/** The runs left unfinished (a chat's turns to finish before its next). */
export const unfinishedRuns = Effect.flatMap(RunStore, (store) => store.unfinished)

/** A user's memories, newest first, or those matching `query`. */
export const memories = (
  userId: string | undefined,
  o: { readonly first: number; readonly query?: string | undefined }
) => Effect.map(Effect.flatMap(Memories, (m) => m.list(userId ?? "", o)), (page) => page.memories)

/** Forgets one memory of a user (`id`), or every one: how many went. */
export const forgetMemories = (userId: string | undefined, id: string | undefined) =>
  Effect.flatMap(
    Memories,
    (m) => id === undefined ? m.forgetAll(userId ?? "") : Effect.map(m.forget(userId ?? "", id), Number)
  )

/** Used and left of each of a user's quotas. */
export const quotaUsage = (userId: string | undefined) => Effect.flatMap(Quotas, (q) => q.usage(userId))

/** Erases a run that has ended and what holds its words: whether there was one. */
export const forgetRun = (userId: string | undefined, runId: string) =>
  Effect.flatMap(Threads, (t) => t.forgetRun(userId ?? "", runId))

/** A user's threads, a thread's turns (undefined: no such thread), or a thread erased. */
export const threads = {
  list: (owner: string, first: number) =>
    Effect.map(Effect.flatMap(Threads, (t) => t.list(owner, { first })), (p) => p.items),
  turns: (owner: string, id: string, first: number) =>
    Effect.map(
      Effect.option(Effect.flatMap(Threads, (t) => t.turns(owner, id, { first }))),
      (page) => Option.getOrUndefined(page)?.items
    ),
  forget: (owner: string, id: string) => Effect.flatMap(Threads, (t) => t.forget(owner, id))
}
