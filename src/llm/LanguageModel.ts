import { Clock, Context, Effect, Either, Option, ParseResult, Schema, Tracer } from "effect"
import type { PromptId } from "../prompts/PromptId.js"
import { outputJsonSchema, type PromptContract, PromptInputError } from "../prompts/PromptRegistry.js"
import { renderTemplate } from "../prompts/Templates.js"
import { traced } from "../telemetry/Span.js"
import { ModelDecodeError, type ModelError, ModelTruncatedError } from "./ModelErrors.js"
import { costOf, type ModelPrice } from "./Pricing.js"
import { countTokens } from "./Tokenizer.js"

/** What a provider receives: the rendered prompts plus the decoded input (the offline and scripted models read it). */
export interface CompletionRequest {
  readonly promptId: PromptId
  readonly system: string
  readonly user: string
  readonly input: unknown
  readonly jsonSchema: object
  readonly maxOutputTokens: number
  /** The most requests this call may send the provider, retries included (what is left of the call budget). */
  readonly maxRequests?: number | undefined
  /** Called as each request is sent: every one counts against the call budget. */
  readonly onRequest?: (() => void) | undefined
}

export interface CompletionResponse {
  readonly text: string
  /** The model that answered, as the provider names it (it may differ from the one asked for). */
  readonly model?: string | undefined
  /** Why the answer ended, as the provider says it ("stop", "length", …). */
  readonly finishReason?: string | undefined
  /** The provider cut the answer at the output cap (OpenAI's finish_reason "length"): it is not complete. */
  readonly truncated?: boolean | undefined
  /** Reported by the provider when it can; otherwise counted here. */
  readonly inputTokens?: number | undefined
  readonly outputTokens?: number | undefined
}

export interface CallUsage {
  readonly model: string
  readonly inputTokens: number
  readonly outputTokens: number
  readonly costUsd: number
  readonly latencyMs: number
  /** Requests the call sent the provider (retries included); 1 when the provider does not say. */
  readonly requests?: number | undefined
  /** The call failed: no answer came (its requests still count). */
  readonly error?: string | undefined
  /** What was sent and what came back, when the caller records exchanges. */
  readonly exchange?: Exchange | undefined
}

/** One request to the model and its answer, as recorded (AEON_RECORD_PROMPTS). */
export interface Exchange {
  /** 1, or 2 for the call made again with a larger cap after a truncated answer. */
  readonly attempt: number
  readonly system: string
  readonly user: string
  readonly response?: string | undefined
  readonly finishReason?: string | undefined
  readonly output?: unknown
  readonly decodeError?: string | undefined
  /** The call failed before an answer came (HTTP error, timeout, unreachable). */
  readonly error?: string | undefined
}

/** What a call could cost at most: the prompt's tokens and the output cap. Checked against budgets before the call. */
export interface CallEstimate {
  readonly promptId: PromptId
  readonly inputTokens: number
  readonly maxOutputTokens: number
  readonly maxCostUsd: number
}

export interface GenerateOptions<E = never> {
  readonly maxOutputTokens?: number
  /** Admission control: fails to refuse the call (e.g. it could cross a budget). */
  readonly admit?: (estimate: CallEstimate) => Effect.Effect<void, E>
  /**
   * Told the usage of every call that reached the model, also when its answer then fails to decode or it failed;
   * fails when the usage the provider reported crossed a budget (the overage is recorded first).
   */
  readonly record?: (usage: CallUsage) => Effect.Effect<void, E>
  /** How many requests the call may still send (what is left of the call budget). */
  readonly maxRequests?: Effect.Effect<number>
  /** Tokens left in the budget: the output cap sent to the provider is lowered to fit them. */
  readonly tokensLeft?: Effect.Effect<number>
  /** Record the prompt and the answer: in the usage given to `record`, and as events of the call's span. */
  readonly recordExchanges?: boolean
}

/** The least output cap worth sending when the token budget lowers it. */
const MIN_OUTPUT_TOKENS = 16

export interface Generated<O> {
  readonly output: O
  readonly text: string
  readonly usage: CallUsage
}

export const DEFAULT_MAX_OUTPUT_TOKENS = 1024

export interface Service {
  /** `offline`, `scripted`, or `openai:<model>`: shown in every result. */
  readonly label: string
  /** gen_ai.provider.name and gen_ai.request.model of the OpenTelemetry GenAI conventions. */
  readonly provider: string
  readonly model: string
  readonly price: ModelPrice
  /** Said in every run's result (e.g. the model has no price). */
  readonly notice?: string | undefined
  readonly complete: (request: CompletionRequest) => Effect.Effect<CompletionResponse, ModelError>
  readonly generate: <I, O, E = never>(
    contract: PromptContract<I, O>,
    input: I,
    options?: GenerateOptions<E>
  ) => Effect.Effect<Generated<O>, ModelError | PromptInputError | E>
}

export class LanguageModel extends Context.Tag("aeon/LanguageModel")<LanguageModel, Service>() {}

const parseJson = (text: string): unknown => {
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, "").replace(/```$/, "")
  return JSON.parse(trimmed)
}

/** Decodes a model's text with the contract's output schema; the failure keeps the raw text for the supervisor. */
export const decodeAnswer = <O>(contract: PromptContract<any, O>, text: string): Effect.Effect<O, ModelDecodeError> =>
  Effect.suspend(() => {
    let json: unknown
    try {
      json = parseJson(text)
    } catch (e) {
      return Effect.fail(
        new ModelDecodeError({ promptId: contract.id, raw: text, message: `not JSON: ${(e as Error).message}` })
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

/** Why an answer ended, as the provider says it, else as Aeon saw it (cut at its cap, or complete). */
const finishReasonOf = (response: CompletionResponse) =>
  response.finishReason ?? (response.truncated ? "length" : "stop")

/** Builds the service from a provider's raw completion function. */
export const make = (
  label: string,
  price: ModelPrice,
  complete: Service["complete"],
  notice?: string | undefined
): Service => {
  // "openai:gpt-4o-mini" is the model gpt-4o-mini of the provider openai; the built-in models are Aeon's own
  const [provider, model] = label.includes(":") ?
    [label.slice(0, label.indexOf(":")), label.slice(label.indexOf(":") + 1)]
    : [`aeon.${label}`, label]
  const generate = <I, O, E = never>(contract: PromptContract<I, O>, input: I, options?: GenerateOptions<E>) =>
    Effect.gen(function*() {
      const system = contract.system.template
      const inputDecoded = Schema.decodeUnknownEither(contract.user.input)(input)
      if (Either.isLeft(inputDecoded)) {
        return yield* new PromptInputError({
          promptId: contract.id,
          message: ParseResult.TreeFormatter.formatErrorSync(inputDecoded.left)
        })
      }
      const decodedInput = inputDecoded.right
      const user = renderTemplate(contract.user.template, decodedInput as Record<string, unknown>)
      let maxOutputTokens = options?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS
      // a token covers at least one UTF-8 byte and a UTF-16 unit at most three bytes: 3 × length bounds the
      // input's tokens. Counting exactly is only needed when that bound does not fit the budget, or when the
      // provider does not report usage.
      let counted: number | undefined
      const inputTokens = () => (counted ??= countTokens(system) + countTokens(user))
      if (options?.tokensLeft) {
        // the output cap the provider gets fits what is left of the token budget (when a useful one still does)
        const left = yield* options.tokensLeft
        if (3 * (system.length + user.length) + maxOutputTokens > left) {
          const fits = left - inputTokens()
          if (fits >= MIN_OUTPUT_TOKENS) maxOutputTokens = Math.min(maxOutputTokens, fits)
        }
      }
      const recording = options?.recordExchanges === true
      /**
       * The call's span after the answer: the GenAI conventions' usage and response, the content when recorded. Set on
       * the span directly, in one step (as `Effect.annotateCurrentSpan` per attribute in an `Effect.gen`, it was a
       * quarter of a model call's own cost: without it 65 → 48 µs a call; written so, 72–80 → 62–69 µs, the fastest of
       * seven rounds of 20,000 calls, three alternating runs). The span is looked up, not asked for with
       * `Effect.currentSpan`, which fails with a new NoSuchElementException (an Error and its stack) when there is none,
       * as there is none when no tracer keeps spans (telemetry/Span).
       */
      const annotateSpan = (response: CompletionResponse, inputTokens: number, outputTokens: number) =>
        Effect.flatMap(Effect.serviceOption(Tracer.ParentSpan), (parent) => {
          if (Option.isNone(parent) || parent.value._tag !== "Span") return Effect.void
          const span = parent.value
          const finishReason = finishReasonOf(response)
          span.attribute("gen_ai.response.model", response.model ?? model)
          span.attribute("gen_ai.usage.input_tokens", inputTokens)
          span.attribute("gen_ai.usage.output_tokens", outputTokens)
          span.attribute("gen_ai.response.finish_reasons", [finishReason])
          // the conventions want a string[]; @effect/opentelemetry writes arrays as text, so the OTel span is given it
          const otel = (span as { span?: { setAttribute?: (k: string, v: Array<string>) => void } }).span
          otel?.setAttribute?.("gen_ai.response.finish_reasons", [finishReason])
          if (!recording) return Effect.void
          return Effect.map(Clock.currentTimeNanos, (nanos) => {
            const now = BigInt(nanos)
            span.event("gen_ai.system.message", now, { "gen_ai.system": provider, content: system })
            span.event("gen_ai.user.message", now, { "gen_ai.system": provider, content: user })
            span.event("gen_ai.choice", now, {
              "gen_ai.system": provider,
              index: 0,
              finish_reason: finishReason,
              message: response.text
            })
          })
        })
      /** Admission of a call with this output cap: the budget refuses what it could cross. */
      const admitted = (cap: number) => {
        if (!options?.admit) return Effect.void
        const admit = options.admit
        const estimate = (tokens: number) => ({
          promptId: contract.id,
          inputTokens: tokens,
          maxOutputTokens: cap,
          maxCostUsd: costOf(price, tokens, cap)
        })
        const bound = 3 * (system.length + user.length)
        return admit(estimate(bound)).pipe(Effect.catchAll(() => admit(estimate(inputTokens()))))
      }
      /** One call: sent, its usage recorded (also when it failed: its requests count), annotated on the span. */
      const send = (cap: number, attempt: number) =>
        Effect.gen(function*() {
          const started = yield* Clock.currentTimeMillis
          let sent = 0
          const response = yield* complete({
            promptId: contract.id,
            system,
            user,
            input: decodedInput,
            jsonSchema: outputJsonSchema(contract),
            maxOutputTokens: cap,
            maxRequests: options?.maxRequests ? yield* options.maxRequests : undefined,
            onRequest: () => void sent++
          }).pipe(
            Effect.tapError((e) =>
              Effect.flatMap(Clock.currentTimeMillis, (now) =>
                options?.record
                  ? options.record({
                    model: label,
                    inputTokens: 0,
                    outputTokens: 0,
                    costUsd: 0,
                    latencyMs: now - started,
                    requests: Math.max(1, sent),
                    error: e._tag,
                    ...(recording ? { exchange: { attempt, system, user, error: `${e._tag}: ${e.message}` } } : {})
                  })
                  : Effect.void)
            )
          )
          // a cut answer is not decoded: it is not an answer
          const decoded = response.truncated ? undefined : yield* Effect.either(decodeAnswer(contract, response.text))
          const latencyMs = (yield* Clock.currentTimeMillis) - started
          const usedInput = response.inputTokens ?? inputTokens()
          // as the provider reports it, also above the cap it was given: an overage is recorded, never hidden
          const usedOutput = response.outputTokens ?? countTokens(response.text)
          const usage: CallUsage = {
            model: label,
            inputTokens: usedInput,
            outputTokens: usedOutput,
            costUsd: costOf(price, usedInput, usedOutput),
            latencyMs,
            requests: Math.max(1, sent),
            ...(response.truncated ? { error: "ModelTruncatedError" } : {}),
            ...(recording ?
              {
                exchange: {
                  attempt,
                  system,
                  user,
                  response: response.text,
                  finishReason: finishReasonOf(response),
                  ...(decoded === undefined ?
                    {}
                    : Either.isRight(decoded) ?
                    { output: decoded.right }
                    : { decodeError: decoded.left.message })
                }
              } :
              {})
          }
          if (options?.record) yield* options.record(usage)
          yield* annotateSpan(response, usedInput, usedOutput)
          return { response, usage, decoded }
        })
      /** Twice the cap, within what is left of the token budget; none when that is no larger. */
      const largerCap = (cap: number) =>
        Effect.gen(function*() {
          const fits = options?.tokensLeft ? (yield* options.tokensLeft) - inputTokens() : Number.POSITIVE_INFINITY
          const larger = Math.min(2 * cap, fits)
          return larger > cap ? larger : undefined
        })
      const truncated = (cap: number) => new ModelTruncatedError({ promptId: contract.id, maxOutputTokens: cap })

      yield* admitted(maxOutputTokens)
      let { decoded, response, usage } = yield* send(maxOutputTokens, 1)
      // an answer cut at its cap is never taken as complete: once more with a larger cap if the budget allows
      if (response.truncated) {
        const larger = yield* largerCap(maxOutputTokens)
        if (larger === undefined) return yield* truncated(maxOutputTokens)
        yield* admitted(larger).pipe(Effect.mapError(() => truncated(maxOutputTokens)))
        ;({ decoded, response, usage } = yield* send(larger, 2))
        if (response.truncated) return yield* truncated(larger)
      }
      if (decoded === undefined || Either.isLeft(decoded)) return yield* decoded?.left ?? truncated(maxOutputTokens)
      return { output: decoded.right, text: response.text, usage }
    }).pipe(
      // the OpenTelemetry GenAI conventions: a span per model call, named "chat {model}"
      traced(`chat ${model}`, {
        captureStackTrace: false,
        kind: "client",
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": provider,
          "gen_ai.request.model": model,
          "gen_ai.request.max_tokens": options?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
          "aeon.prompt_id": contract.id
        }
      })
    )
  return { label, provider, model, price, complete, generate, notice }
}
