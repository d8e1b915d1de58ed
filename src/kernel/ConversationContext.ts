import { Config, Effect } from "effect"
import { isModelFailure } from "../llm/Llm.js"
import {
  compacted,
  type ContextPlan,
  DEFAULT_THREAD_CONTEXT_TOKENS,
  type LoadedConversation,
  planContext,
  quotedMessages
} from "../memory/Conversation.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import type { RunContext } from "./RunContext.js"

/** AEON_THREAD_CONTEXT_TOKENS: how much of a conversation a run's prompts quote before its oldest turns are compacted. */
export const threadContextTokensConfig = Config.integer("AEON_THREAD_CONTEXT_TOKENS").pipe(
  Config.withDescription(
    "Tokens of a conversation a run's plan and answer prompts quote; past it the oldest turns are summarised"
  ),
  Config.validate({ message: "AEON_THREAD_CONTEXT_TOKENS must be 200 or more", validation: (n) => n >= 200 }),
  Config.withDefault(DEFAULT_THREAD_CONTEXT_TOKENS),
  Effect.orDie
)

/** The summary of the oldest messages: one call a chunk, each folding the notes so far with the chunk. */
const summarise = (ctx: RunContext, plan: Extract<ContextPlan, { _tag: "compact" }>, prior?: string) =>
  Effect.reduce(plan.chunks, prior, (notes, chunk) =>
    Effect.map(
      ctx.llm.generate(Contracts.conversationSummary, {
        ...(notes ? { summary: notes } : {}),
        messages: quotedMessages(chunk),
        maxTokens: plan.summaryTokens
      }, { maxOutputTokens: plan.summaryTokens + 32 }),
      (r): string | undefined => r.output.summary
    ))

/**
 * The conversation section of the run's plan and answer prompts (memory/Conversation), made once a run: the fold's
 * ConversationQuoted when the run has one (a later attempt, a resume, a fork past it), else made now — within the
 * bound no call; past it the oldest messages summarised (calls admitted against the run's budget and recorded) and
 * the summary stored for later turns — and recorded. A conversation that cannot be read is an advisory: the run
 * plans without it. A failed summary call is too: the newest messages are quoted, the older ones left out.
 */
export const conversationSection = (ctx: RunContext, passNumber: number) =>
  Effect.gen(function*() {
    const quoted = ctx.events.record().conversation
    if (quoted) return quoted.text || undefined
    const source = ctx.conversation
    if (!source) return undefined
    const loaded = yield* source.load
    const plan = planContext(loaded.messages, loaded.prior, source.bound)
    const made = plan._tag === "quote"
      ? { ...plan, summary: undefined }
      : yield* compaction(ctx, passNumber, plan, loaded)
    yield* ctx.events.emit({
      _tag: "ConversationQuoted",
      ...(loaded.threadId !== undefined ? { threadId: loaded.threadId } : {}),
      ...(loaded.turn !== undefined ? { turn: loaded.turn } : {}),
      total: loaded.total,
      messages: loaded.messages,
      ...(loaded.prior ? { prior: loaded.prior } : {}),
      ...(made.summary ? { summary: made.summary } : {}),
      text: made.text,
      tokens: made.tokens
    })
    if (made.summary) yield* source.save(made.summary)
    return made.text || undefined
  }).pipe(
    Effect.catchTag("ConversationUnavailable", (e) =>
      Effect.as(
        ctx.events.emit({
          _tag: "AdvisoryRaised",
          passNumber,
          advisory: `the conversation could not be read, planned without it: ${e.reason}`
        }),
        undefined
      ))
  )

const compaction = (
  ctx: RunContext,
  passNumber: number,
  plan: Extract<ContextPlan, { _tag: "compact" }>,
  loaded: LoadedConversation
) =>
  summarise(ctx, plan, loaded.prior?.text).pipe(
    Effect.map((summary) => {
      const made = compacted(plan, summary ?? "")
      const covers = (loaded.prior?.covers ?? 0) + plan.covers
      return { ...made, summary: made.summary === undefined ? undefined : { text: made.summary, covers } }
    }),
    Effect.catchIf(isModelFailure, (e) =>
      Effect.as(
        ctx.events.emit({
          _tag: "AdvisoryRaised",
          passNumber,
          advisory: `the conversation's oldest turns could not be summarised (${e.message}): only the newest are quoted`
        }),
        { ...compacted(plan, loaded.prior?.text ?? ""), summary: undefined }
      ))
  )
