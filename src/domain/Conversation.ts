import { Schema } from "effect"

/** A thread's id, chosen by the client (an A2A contextId, an AG-UI threadId) or by Aeon: ids are per user. */
export const THREAD_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/

export const ThreadId = Schema.String.pipe(
  Schema.filter((s) => THREAD_ID_PATTERN.test(s) || "threadId must be 1-128 letters, digits, '.', ':', '-' or '_'")
)

/** One message of a conversation before a run's task: who said it and what. */
export const ConversationMessage = Schema.Struct({
  role: Schema.Literal("user", "assistant"),
  text: Schema.String
})
export type ConversationMessage = typeof ConversationMessage.Type

/** A summary of a conversation's first `covers` messages, made by a model call (memory/Conversation). */
export const ConversationSummary = Schema.Struct({
  text: Schema.String,
  covers: Schema.Int
})
export type ConversationSummary = typeof ConversationSummary.Type

/**
 * What a run quoted of its conversation, before it planned (a thread's earlier turns, or the history a client sent):
 * the messages it was made from (those after `prior`, a summary stored earlier and reused), the summary this run made
 * (its call recorded just before), and the section the plan and answer prompts quote. Replay and fork read it here.
 */
export const ConversationQuotedFields = {
  threadId: Schema.optional(Schema.String),
  /** This run's turn in its thread (1 for the first). */
  turn: Schema.optional(Schema.Int),
  /** The conversation's messages before the task (0 for a thread's first turn). */
  total: Schema.Int,
  messages: Schema.Array(ConversationMessage),
  prior: Schema.optional(ConversationSummary),
  summary: Schema.optional(ConversationSummary),
  /** The section as the prompts quote it (empty: nothing earlier). */
  text: Schema.String,
  tokens: Schema.Int
}
