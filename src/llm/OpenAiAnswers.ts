import { Effect, Runtime } from "effect"
import type OpenAI from "openai"
import { Stream } from "openai/core/streaming"
import { messageOf } from "../support/Thrown.js"
import type * as LanguageModel from "./LanguageModel.js"
import { type ModelError, ModelUnavailableError } from "./ModelErrors.js"

/**
 * An OpenAI-compatible endpoint's answer as a call's response: a JSON body, or a stream of chunks assembled as they
 * come (the text handed on as it is written), its usage as the provider reported it.
 */

/** The parts of a completion Aeon reads; a provider's usage as it reported it (LanguageModel judges it). */
const answerOf = (
  text: string,
  finishReason: string | undefined,
  model: string | undefined,
  usage: OpenAI.CompletionUsage | undefined
): LanguageModel.CompletionResponse => ({
  text,
  // cut at max_tokens: not a complete answer, however well its text parses
  truncated: finishReason === "length",
  finishReason,
  model,
  inputTokens: usage?.prompt_tokens,
  outputTokens: usage?.completion_tokens,
  cachedInputTokens: usage?.prompt_tokens_details?.cached_tokens ?? undefined
})

/** A plain completion as the call's response (a provider's JSON body, also when a stream was asked for). */
const responseOf = (completion: OpenAI.Chat.ChatCompletion): LanguageModel.CompletionResponse =>
  answerOf(
    completion.choices?.[0]?.message?.content ?? "",
    completion.choices?.[0]?.finish_reason ?? undefined,
    completion.model,
    completion.usage ?? undefined
  )

/**
 * A streamed completion read to its end: the text handed to `onText` chunk by chunk, the answer assembled as a plain
 * call returns it (the finish reason of the last chunk that has one, the usage of the closing chunk). A stream that
 * breaks off is an endpoint out of reach, not retried: part of its text has been shown. Interrupting the read aborts
 * the stream (its HTTP request) at once.
 *
 * One promise over the whole stream, `onText` run synchronously in the fiber's runtime (a TextSink never suspends):
 * not `Stream.fromAsyncIterable`, whose effect per chunk costs about twice as much per streamed call (bench row 15).
 */
const assembled = (
  chunks: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>,
  controller: AbortController,
  onText: ((text: string) => Effect.Effect<void>) | undefined,
  endpoint: string
) =>
  Effect.flatMap(Effect.runtime<never>(), (runtime) => {
    const show = onText ? Runtime.runSync(runtime) : undefined
    return Effect.tryPromise({
      try: async (signal) => {
        signal.addEventListener("abort", () => controller.abort())
        let text = ""
        let finish: string | undefined
        let model: string | undefined
        let usage: OpenAI.CompletionUsage | undefined
        for await (const chunk of chunks) {
          const choice = chunk.choices?.[0]
          const piece = choice?.delta?.content ?? ""
          text += piece
          finish = choice?.finish_reason ?? finish
          model ??= chunk.model
          usage = chunk.usage ?? usage
          if (piece !== "" && show && onText) show(onText(piece))
        }
        return answerOf(text, finish, model, usage)
      },
      catch: (e) =>
        new ModelUnavailableError({
          message: `${endpoint} broke off its answer: ${messageOf(e)}`
        })
    })
  })

/**
 * The answer in an HTTP response, by what the server sent rather than what was asked: a JSON body is the completion
 * (some gateways answer a stream request so: its usage is the bill), server-sent events are a stream.
 */
export const readAnswer = (
  response: Response,
  controller: AbortController,
  onText: ((text: string) => Effect.Effect<void>) | undefined,
  endpoint: string
): Effect.Effect<LanguageModel.CompletionResponse, ModelError> =>
  (response.headers.get("content-type") ?? "").includes("json")
    ? Effect.tryPromise({
      try: () => response.json() as Promise<OpenAI.Chat.ChatCompletion>,
      catch: (e) =>
        new ModelUnavailableError({
          message: `${endpoint} sent a body that is not JSON: ${messageOf(e)}`
        })
    }).pipe(
      Effect.map(responseOf),
      Effect.tap((r) => (onText && r.text !== "" ? onText(r.text) : Effect.void))
    )
    : assembled(Stream.fromSSEResponse(response, controller), controller, onText, endpoint)

/** An answer with no content and no output tokens: the provider failed, whatever its status said. */
export const isEmpty = (r: LanguageModel.CompletionResponse) =>
  r.text.trim() === "" && !(typeof r.outputTokens === "number" && r.outputTokens > 0) && !r.truncated
