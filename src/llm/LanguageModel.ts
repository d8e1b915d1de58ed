import { Clock, Context, Effect, Either, Option, ParseResult, Schema, Tracer } from "effect"
import type { PromptId } from "../prompts/PromptId.js"
import { outputJsonSchema, type PromptContract, PromptInputError } from "../prompts/PromptRegistry.js"
import { renderTemplate } from "../prompts/Templates.js"
import { traced } from "../telemetry/Span.js"
import { type ModelError, ModelTruncatedError } from "./ModelErrors.js"
import { costOf, type ModelPrice } from "./Pricing.js"
import { countTokens } from "./Tokenizer.js"

import { type CallUsage, ESTIMATE_MARGIN, finishReasonOf, reportsUsage, usageOf } from "./CallUsage.js"
import { type CompletionRequest, type CompletionResponse, decodeAnswer, type TextSink } from "./Completion.js"

/** The provider contract (requests, answers, their text) stays reachable as LanguageModel.* for providers and users. */
export * from "./Completion.js"

export { ESTIMATE_MARGIN } from "./CallUsage.js"
export type { CallUsage, Exchange } from "./CallUsage.js"

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
  /** Asked when admission refused the call: true once more budget was given (the call is admitted again). */
  readonly moreBudget?: (refusal: E) => Effect.Effect<boolean>
  /**
   * Told the usage of every call that reached the model, also when its answer then fails to decode or it failed;
   * fails when the usage the provider reported crossed a budget (the overage is recorded first).
   */
  readonly record?: (usage: CallUsage) => Effect.Effect<void, E>
  /** How many requests the call may send, retries included (what is left of the call budget), asked as it goes. */
  readonly maxRequests?: () => number
  /** Told as each request is sent. */
  readonly onRequest?: () => void
  /** Tokens left in the budget: the output cap sent to the provider is lowered to fit them. */
  readonly tokensLeft?: Effect.Effect<number>
  /** Record the prompt and the answer: in the usage given to `record`, and as events of the call's span. */
  readonly recordExchanges?: boolean
  /** Where each request's text goes as it is written (the run's live output). */
  readonly liveText?: (promptId: PromptId) => Effect.Effect<TextSink>
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
  /** The models of a fallback chain, in order (llm/Fallback); absent for a single model. */
  readonly members?: ReadonlyArray<Service> | undefined
}

/**
 * The model of this configuration labeled `label` (a member of its fallback chain, or itself), or the offline
 * stand-in: a run may choose among the models the operator configured, never name a new endpoint.
 */
export const configured = (service: Service, label: string, offline: Service): Service | undefined =>
  [service, ...(service.members ?? []), offline].find((m) => m.label === label)

/** The labels `configured` accepts. */
export const configuredLabels = (service: Service, offline: Service): ReadonlyArray<string> => [
  ...new Set([service.label, ...(service.members ?? []).map((m) => m.label), offline.label])
]

export class LanguageModel extends Context.Tag("aeon/LanguageModel")<LanguageModel, Service>() {}

/** The model a call goes to, as `make` was given it. */
interface Model {
  readonly label: string
  readonly provider: string
  readonly model: string
  readonly price: ModelPrice
  readonly complete: Service["complete"]
  /**
   * A provider's (not one of Aeon's own models, which count as Aeon does): set once it answered without usage,
   * from then on its calls are admitted on the high side.
   */
  readonly usage: { readonly provider: boolean; unreported: boolean }
}

/** One `generate` call: its prompt rendered, its options, its input's tokens counted once when needed. */
interface Call<I, O, E> {
  readonly model: Model
  readonly contract: PromptContract<I, O>
  readonly options: GenerateOptions<E> | undefined
  readonly system: string
  readonly user: string
  readonly input: unknown
  readonly recording: boolean
  readonly inputTokens: () => number
  /** What a chat provider bills for the call's input: the texts, the chat format's framing, the output schema. */
  readonly billedInputTokens: () => number
}

/**
 * What a chat-completions provider bills beyond the two texts (OpenAI's count: 3 tokens framing each message, 3
 * priming the reply; 4 per message here, a margin for providers that frame with more), and the structured-output
 * JSON Schema sent with the call (`response_format`: its name and schema). Admission counts them, so a run's
 * `maxTokens` holds against what is billed, not only against what Aeon wrote.
 */
const CHAT_FRAMING_TOKENS = 2 * 4 + 3
const schemaTexts = new Map<string, { readonly text: string; tokens?: number }>()
/** The structured-output schema as sent (its text; its tokens counted only when asked). */
const schemaOf = <I, O>(contract: PromptContract<I, O>) => {
  let s = schemaTexts.get(contract.id)
  if (s === undefined) {
    s = { text: JSON.stringify({ name: contract.id, schema: outputJsonSchema(contract), strict: false }) }
    schemaTexts.set(contract.id, s)
  }
  return s
}
const schemaTokensOf = <I, O>(contract: PromptContract<I, O>) => {
  const s = schemaOf(contract)
  return s.tokens ??= countTokens(s.text)
}

const callOf = <I, O, E>(model: Model, contract: PromptContract<I, O>, input: I, options?: GenerateOptions<E>) =>
  Effect.suspend(() => {
    const inputDecoded = Schema.decodeUnknownEither(contract.user.input)(input)
    if (Either.isLeft(inputDecoded)) {
      return Effect.fail(
        new PromptInputError({
          promptId: contract.id,
          message: ParseResult.TreeFormatter.formatErrorSync(inputDecoded.left)
        })
      )
    }
    const system = contract.system.template
    const user = renderTemplate(contract.user.template, inputDecoded.right as Record<string, unknown>)
    let counted: number | undefined
    const call: Call<I, O, E> = {
      model,
      contract,
      options,
      system,
      user,
      input: inputDecoded.right,
      recording: options?.recordExchanges === true,
      inputTokens: () => (counted ??= countTokens(system) + countTokens(user)),
      billedInputTokens: () => {
        const billed = call.inputTokens() + CHAT_FRAMING_TOKENS + schemaTokensOf(contract)
        return model.usage.unreported ? Math.ceil(billed * ESTIMATE_MARGIN) : billed
      }
    }
    return Effect.succeed(call)
  })

/**
 * The output cap the provider gets: the call's, lowered to what is left of the token budget when a useful one still
 * fits. A token covers at least one UTF-8 byte and a UTF-16 unit at most three bytes: 3 × length bounds the input's
 * tokens; counting exactly is only needed when that bound does not fit the budget, or when the provider does not
 * report usage.
 */
const outputCap = <I, O, E>(call: Call<I, O, E>) =>
  Effect.gen(function*() {
    const cap = call.options?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS
    if (!call.options?.tokensLeft) return cap
    const left = yield* call.options.tokensLeft
    if (billedBound(call) + cap <= left) return cap
    const fits = left - call.billedInputTokens()
    return fits >= MIN_OUTPUT_TOKENS ? Math.min(cap, fits) : cap
  })

/**
 * The call's span after the answer: the GenAI conventions' usage and response, the content when recorded. Set on
 * the span directly, in one step: `Effect.annotateCurrentSpan` per attribute in an `Effect.gen` added about a
 * quarter to a model call's own cost in Aeon (measured in rounds of 20,000 calls). The span is looked up, not asked for with
 * `Effect.currentSpan`, which fails with a new NoSuchElementException (an Error and its stack) when there is none,
 * as there is none when no tracer keeps spans (telemetry/Span).
 */
const annotateSpan = <I, O, E>(
  call: Call<I, O, E>,
  response: CompletionResponse,
  inputTokens: number,
  outputTokens: number
) =>
  Effect.flatMap(Effect.serviceOption(Tracer.ParentSpan), (parent) => {
    if (Option.isNone(parent) || parent.value._tag !== "Span") return Effect.void
    const span = parent.value
    const finishReason = finishReasonOf(response)
    span.attribute("gen_ai.response.model", response.model ?? call.model.model)
    span.attribute("gen_ai.usage.input_tokens", inputTokens)
    span.attribute("gen_ai.usage.output_tokens", outputTokens)
    span.attribute("gen_ai.response.finish_reasons", [finishReason])
    // the conventions want a string[]; @effect/opentelemetry writes arrays as text, so the OTel span is given it
    const otel = (span as { span?: { setAttribute?: (k: string, v: Array<string>) => void } }).span
    otel?.setAttribute?.("gen_ai.response.finish_reasons", [finishReason])
    if (!call.recording) return Effect.void
    const system = call.model.provider
    return Effect.map(Clock.currentTimeNanos, (nanos) => {
      const now = BigInt(nanos)
      span.event("gen_ai.system.message", now, { "gen_ai.system": system, content: call.system })
      span.event("gen_ai.user.message", now, { "gen_ai.system": system, content: call.user })
      span.event("gen_ai.choice", now, {
        "gen_ai.system": system,
        index: 0,
        finish_reason: finishReason,
        message: response.text
      })
    })
  })

/**
 * A bound on the billed input without counting the texts (the schema's included: counting it would load the
 * tokenizer — 65 MB, a quarter of a second — in every process, also where the provider reports usage): a token covers
 * at least one UTF-8 byte, a UTF-16 unit at most three.
 */
const billedBound = <I, O, E>(call: Call<I, O, E>) =>
  Math.ceil(
    (3 * (call.system.length + call.user.length + schemaOf(call.contract).text.length) + CHAT_FRAMING_TOKENS) *
      (call.model.usage.unreported ? ESTIMATE_MARGIN : 1)
  )

/** Admission of a call with this output cap: the budget refuses what it could cross. */
const admitted = <I, O, E>(call: Call<I, O, E>, cap: number): Effect.Effect<void, E> => {
  const admit = call.options?.admit
  if (!admit) return Effect.void
  const estimate = (tokens: number) => ({
    promptId: call.contract.id,
    inputTokens: tokens,
    maxOutputTokens: cap,
    maxCostUsd: costOf(call.model.price, tokens, cap)
  })
  return admit(estimate(billedBound(call))).pipe(Effect.catchAll(() => admit(estimate(call.billedInputTokens()))))
}

/** The call's output cap, admitted; refused and given more budget (an interactive run), its cap and admission again. */
const admittedCap = <I, O, E>(call: Call<I, O, E>): Effect.Effect<number, E> =>
  Effect.flatMap(outputCap(call), (cap) =>
    admitted(call, cap).pipe(
      Effect.as(cap),
      Effect.catchAll((refusal) => {
        const more = call.options?.moreBudget
        if (!more) return Effect.fail(refusal)
        return Effect.flatMap(more(refusal), (given) => (given ? admittedCap(call) : Effect.fail(refusal)))
      })
    ))

/** A call that failed still counts its requests (and its exchange, when recorded). */
const recordFailure = <I, O, E>(call: Call<I, O, E>, e: ModelError, started: number, sent: number, attempt: number) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    call.options?.record
      ? call.options.record({
        model: call.model.label,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        latencyMs: now - started,
        requests: Math.max(1, sent),
        error: e._tag,
        ...(call.recording
          ? { exchange: { attempt, system: call.system, user: call.user, error: `${e._tag}: ${e.message}` } }
          : {})
      })
      : Effect.void)

/** One call: sent, its usage recorded (also when it failed: its requests count), annotated on the span. */
const send = <I, O, E>(call: Call<I, O, E>, cap: number, attempt: number) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    let sent = 0
    const sink = call.options?.liveText ? yield* call.options.liveText(call.contract.id) : undefined
    const response = yield* call.model.complete({
      promptId: call.contract.id,
      system: call.system,
      user: call.user,
      input: call.input,
      jsonSchema: outputJsonSchema(call.contract),
      maxOutputTokens: cap,
      maxRequests: call.options?.maxRequests,
      onRequest: () => void (sent++, call.options?.onRequest?.()),
      onText: sink?.push
    }).pipe(
      Effect.tapError((e) => recordFailure(call, e, started, sent, attempt)),
      Effect.ensuring(sink?.done ?? Effect.void)
    )
    // a cut answer is not decoded: it is not an answer
    const decoded = response.truncated ? undefined : yield* Effect.either(decodeAnswer(call.contract, response.text))
    const latencyMs = (yield* Clock.currentTimeMillis) - started
    if (call.model.usage.provider && !reportsUsage(response)) call.model.usage.unreported = true
    const usage = usageOf(call, response, decoded, { latencyMs, requests: Math.max(1, sent), attempt, cap })
    if (call.options?.record) yield* call.options.record(usage)
    yield* annotateSpan(call, response, usage.inputTokens, usage.outputTokens)
    return { response, usage, decoded }
  })

/** Twice the cap, within what is left of the token budget; none when that is no larger. */
const largerCap = <I, O, E>(call: Call<I, O, E>, cap: number) =>
  Effect.gen(function*() {
    const tokensLeft = call.options?.tokensLeft
    const fits = tokensLeft ? (yield* tokensLeft) - call.billedInputTokens() : Number.POSITIVE_INFINITY
    const larger = Math.min(2 * cap, fits)
    return larger > cap ? larger : undefined
  })

/** Rendered, admitted, sent; an answer cut at its cap is never taken as complete: once more with a larger cap. */
const generateWith = <I, O, E>(call: Call<I, O, E>) =>
  Effect.gen(function*() {
    const truncated = (cap: number) => new ModelTruncatedError({ promptId: call.contract.id, maxOutputTokens: cap })
    const cap = yield* admittedCap(call)
    let { decoded, response, usage } = yield* send(call, cap, 1)
    if (response.truncated) {
      const larger = yield* largerCap(call, cap)
      if (larger === undefined) return yield* truncated(cap)
      yield* admitted(call, larger).pipe(Effect.mapError(() => truncated(cap)))
      ;({ decoded, response, usage } = yield* send(call, larger, 2))
      if (response.truncated) return yield* truncated(larger)
    }
    if (decoded === undefined || Either.isLeft(decoded)) return yield* decoded?.left ?? truncated(cap)
    return { output: decoded.right, text: response.text, usage }
  })

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
  const target: Model = {
    label,
    provider,
    model,
    price,
    complete,
    usage: { provider: label.includes(":"), unreported: false }
  }
  const generate = <I, O, E = never>(contract: PromptContract<I, O>, input: I, options?: GenerateOptions<E>) =>
    Effect.flatMap(callOf(target, contract, input, options), generateWith).pipe(
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
