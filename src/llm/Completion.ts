import { Effect, Either, ParseResult, Schema } from "effect"
import type { Attached } from "../domain/Attachment.js"
import type { PromptId } from "../prompts/PromptId.js"
import type { PromptContract } from "../prompts/PromptRegistry.js"
import { messageOf } from "../support/Thrown.js"
import { ModelDecodeError } from "./ModelErrors.js"
import type { ModelPrice } from "./Pricing.js"
import { countTokens } from "./Tokenizer.js"

/**
 * What passes between Aeon and a provider: the request, the answer (and how its text is handed out as it is written),
 * and what is done with the text (cut at a cap as a provider cuts it, decoded with the prompt's output schema).
 * LanguageModel builds the calls on it; the providers (OpenAi, Offline, Scripted, Replay, Fallback) implement it.
 */

/** What a provider receives: the rendered prompts plus the decoded input (the offline and scripted models read it). */
export interface CompletionRequest {
  readonly promptId: PromptId
  readonly system: string
  readonly user: string
  readonly input: unknown
  readonly jsonSchema: object
  /** The schema is the caller's (a run's output schema), which the prompt does not describe: JSON mode needs it too. */
  readonly callerSchema?: boolean | undefined
  /** Structured output in strict mode (the caller's schema can have it). */
  readonly strict?: boolean | undefined
  readonly maxOutputTokens: number
  /** Output tokens the model may think with before it answers (within maxOutputTokens): Claude's and Gemini's budget. */
  readonly thinkingTokens?: number | undefined
  /** Files and images the call carries, each provider sending them in its own form. */
  readonly attachments?: ReadonlyArray<Attached> | undefined
  /**
   * The most requests this call may send the provider, retries included (what is left of the call budget), asked as
   * each retry is weighed: calls made at once share what is left.
   */
  readonly maxRequests?: (() => number) | undefined
  /** Called as each request is sent: every one counts against the call budget. */
  readonly onRequest?: (() => void) | undefined
  /** Told the answer's text as it is written, piece by piece (a provider that streams; the others once, in chunks). */
  readonly onText?: ((text: string) => Effect.Effect<void>) | undefined
}

export interface CompletionResponse {
  readonly text: string
  /** What the model thought before it answered (extended thinking): recorded with the call, never the answer. */
  readonly thinking?: string | undefined
  /** The model that answered, as the provider names it (it may differ from the one asked for). */
  readonly model?: string | undefined
  /** Why the answer ended, as the provider says it ("stop", "length", …). */
  readonly finishReason?: string | undefined
  /** The provider cut the answer at the output cap (OpenAI's finish_reason "length"): it is not complete. */
  readonly truncated?: boolean | undefined
  /** Reported by the provider when it can; otherwise counted here. */
  readonly inputTokens?: number | undefined
  readonly outputTokens?: number | undefined
  /** Of the input tokens, those the provider read from its prompt cache (billed at the cached rate). */
  readonly cachedInputTokens?: number | undefined
  /** Of the input tokens, those the provider wrote to its prompt cache (billed at the cache-write rate). */
  readonly cacheWriteInputTokens?: number | undefined
  /** A fallback chain's model that answered (its label and price), when it is not the service's first. */
  readonly answeredBy?: { readonly label: string; readonly price: ModelPrice } | undefined
  /** Models of a fallback chain that failed before the one that answered ("label: why"). */
  readonly failedModels?: ReadonlyArray<string> | undefined
  /** What the provider changed in how it asks, said to the run as an advisory (an output format stepped down). */
  readonly notice?: string | undefined
  /** Answered from a recording (a fork, a replay): the recorded call's model and cost; nothing was sent. */
  readonly replayed?:
    | { readonly model: string; readonly costUsd: number; readonly repeats?: number | undefined }
    | undefined
}

/** Where a call's text goes as it is written (a run's live output): `done` once the call ends, however it ends. */
export interface TextSink {
  readonly push: (text: string) => Effect.Effect<void>
  readonly done: Effect.Effect<void>
}

/** The pieces a model that does not stream hands out: about a few tokens each, as a provider's chunks are. */
const CHUNK_CHARS = 16

/** Hands `text` to `onText` in chunks, `delayMs` apart (the built-in models: the same path as a streaming provider). */
export const streamText = (
  text: string,
  onText: ((text: string) => Effect.Effect<void>) | undefined,
  delayMs = 0
): Effect.Effect<void> => {
  if (!onText || text === "") return Effect.void
  const chunks: Array<string> = []
  for (let i = 0; i < text.length; i += CHUNK_CHARS) chunks.push(text.slice(i, i + CHUNK_CHARS))
  return Effect.forEach(
    chunks,
    (chunk, i) => (i > 0 && delayMs > 0 ? Effect.zipRight(Effect.sleep(delayMs), onText(chunk)) : onText(chunk)),
    { discard: true }
  )
}

/** A reasoning model's thoughts ahead of its answer (`<think>…</think>`, `<thinking>…</thinking>`; also one left open). */
const REASONING_BLOCK = /^\s*<(think|thinking)>[\s\S]*?(?:<\/\1>|$)/i

/**
 * The answer in a model's text: reasoning blocks ahead of it removed (local reasoning models write them before the
 * JSON), then a Markdown fence around it. The recorded call keeps the text as it came.
 */
export const answerOf = (text: string): string => {
  let rest = text
  while (REASONING_BLOCK.test(rest)) rest = rest.replace(REASONING_BLOCK, "")
  return rest.trim().replace(/^```(?:json)?\s*/i, "").replace(/```$/, "").trim()
}

/** An answer with no JSON in it at all: prose (a server that ignored the output format), not malformed JSON. */
export const isProse = (text: string): boolean => {
  const answer = answerOf(text)
  return answer !== "" && !answer.includes("{") && !answer.includes("[")
}

const parseJson = (text: string): unknown => JSON.parse(answerOf(text))

/** Decodes a model's text with the contract's output schema; the failure keeps the raw text for the supervisor. */
export const decodeAnswer = <I, O>(contract: PromptContract<I, O>, text: string): Effect.Effect<O, ModelDecodeError> =>
  Effect.suspend(() => {
    let json: unknown
    try {
      json = parseJson(text)
    } catch (e) {
      return Effect.fail(
        new ModelDecodeError({ promptId: contract.id, raw: text, message: `not JSON: ${messageOf(e)}` })
      )
    }
    // decoded synchronously (the schemas have no effects): no fiber work per answer
    const decoded = Schema.decodeUnknownEither(contract.output)(json)
    return Either.isRight(decoded)
      ? Effect.succeed(decoded.right)
      : Effect.fail(
        new ModelDecodeError({
          promptId: contract.id,
          raw: text,
          message: ParseResult.TreeFormatter.formatErrorSync(decoded.left)
        })
      )
  })

/**
 * What a provider that honours the output cap sends back: the text cut at `maxTokens` (counted by `count`), as an
 * API cuts an answer at max_tokens (finish_reason "length"). The built-in models do this; a cut answer usually no
 * longer decodes, as with a real provider.
 */
export const capOutput = (text: string, maxTokens: number, count: (text: string) => number = countTokens) => {
  if (count(text) <= maxTokens) return text
  let [low, high] = [0, text.length]
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (count(text.slice(0, mid)) <= maxTokens) low = mid
    else high = mid - 1
  }
  return text.slice(0, low)
}
