import { Effect } from "effect"
import type { ConversationMessage } from "../domain/Conversation.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { type ConversationSource, ConversationUnavailable, prefixHash } from "../memory/Conversation.js"
import type { StoreError } from "../store/StoreValues.js"
import type { Service as Threads } from "../store/Threads.js"
import type { RunTaskInput } from "./RunInput.js"

/**
 * Where a run's conversation comes from (kernel/ConversationContext reads it once, before its first plan): the history
 * its client sent, when it sent one — what the person sees in that client, edits and branches included, wins over the
 * turns Aeon holds —, else its thread's earlier turns; a replay's or a fork's, its log (`logged`).
 */
export const conversationSource = (
  threads: Threads | undefined,
  input: RunTaskInput,
  runId: string,
  bound: number,
  logged?: Extract<RunEvent, { _tag: "ConversationQuoted" }>
): ConversationSource | undefined =>
  logged
    ? asLogged(logged, bound)
    : input.history !== undefined && input.history.length > 0
    ? historySource(threads, input, input.history, runId, bound)
    : input.threadId !== undefined && threads
    ? threadSource(threads, input.userId ?? "", input.threadId, runId, bound)
    : undefined

const unavailable = Effect.mapError((e: StoreError) => new ConversationUnavailable({ reason: e.message }))

/** A conversation as a run's log has it: the same messages and stored summary, nothing stored again. */
const asLogged = (e: Extract<RunEvent, { _tag: "ConversationQuoted" }>, bound: number): ConversationSource => ({
  load: Effect.succeed({
    threadId: e.threadId,
    turn: e.turn,
    total: e.total,
    messages: e.messages,
    ...(e.prior ? { prior: e.prior } : {})
  }),
  save: () => Effect.void,
  bound
})

/** A thread's summaries are of its turns in order: one series, marked so. */
const THREAD_SERIES = "turns"

/** A thread Aeon holds: the turns before this run's, after the widest summary stored. */
const threadSource = (
  threads: Threads,
  owner: string,
  threadId: string,
  runId: string,
  bound: number
): ConversationSource => ({
  load: Effect.gen(function*() {
    const prior = (yield* threads.summaries(owner, threadId)).find((s) => s.prefixHash === THREAD_SERIES)
    // a turn is two messages: the turns after those the summary covers whole, less a message it covers of the next
    const after = Math.floor((prior?.covers ?? 0) / 2)
    const { messages, turn } = yield* threads.earlier(owner, threadId, runId, after)
    const skip = (prior?.covers ?? 0) % 2
    return {
      threadId,
      turn,
      total: after * 2 + messages.length,
      messages: messages.slice(skip),
      ...(prior ? { prior: { text: prior.text, covers: prior.covers } } : {})
    }
  }).pipe(unavailable),
  save: (s) => threads.saveSummary(owner, threadId, { ...s, prefixHash: THREAD_SERIES }, runId).pipe(unavailable),
  bound
})

/**
 * A history the client sent: a summary stored for the same first messages is reused (found under the thread's id,
 * or a key made of the conversation's first message); without a store, compacted afresh each time.
 */
const historySource = (
  threads: Threads | undefined,
  input: RunTaskInput,
  history: ReadonlyArray<ConversationMessage>,
  runId: string,
  bound: number
): ConversationSource => {
  const owner = input.userId ?? ""
  const key = input.threadId ?? `history:${prefixHash(history.slice(0, 1))}`
  return {
    load: Effect.gen(function*() {
      const stored = threads ? yield* threads.summaries(owner, key) : []
      const prior = stored.find((s) =>
        s.covers <= history.length && s.prefixHash === prefixHash(history.slice(0, s.covers))
      )
      return {
        ...(input.threadId !== undefined ? { threadId: input.threadId } : {}),
        total: history.length,
        messages: history.slice(prior?.covers ?? 0),
        ...(prior ? { prior: { text: prior.text, covers: prior.covers } } : {})
      }
    }).pipe(unavailable),
    save: (s) =>
      threads
        ? threads.saveSummary(owner, key, { ...s, prefixHash: prefixHash(history.slice(0, s.covers)) }, runId)
          .pipe(unavailable)
        : Effect.void,
    bound
  }
}
