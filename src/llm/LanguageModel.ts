import { Clock, Context, Effect, Either, ParseResult, Schema } from "effect"
import type { Attached } from "../domain/Attachment.js"
import type { PromptId } from "../prompts/PromptId.js"
import { outputJsonSchema, type PromptContract, PromptInputError } from "../prompts/PromptRegistry.js"
import { renderTemplate, systemPrompt } from "../prompts/Templates.js"
import { traced } from "../telemetry/Span.js"
import { billedInputBound, billedInputTokens, TOKENIZER_MARGIN } from "./BilledTokens.js"
import { type ModelDecodeError, type ModelError, ModelTruncatedError } from "./ModelErrors.js"
import type { ModelPrice } from "./Pricing.js"
import { countTokens } from "./Tokenizer.js"

import { recordOf } from "../support/Fields.js"
import { annotateSpan } from "./CallSpan.js"
import { type CallUsage, ESTIMATE_MARGIN, failedUsage, reportsUsage, usageOf } from "./CallUsage.js"
import { type CompletionRequest, type CompletionResponse, decodeAnswer } from "./Completion.js"

/** The provider contract (requests, answers, their text) stays reachable as LanguageModel.* for providers and users. */
export * from "./Completion.js"

export { TOKENIZER_MARGIN } from "./BilledTokens.js"
export { ESTIMATE_MARGIN } from "./CallUsage.js"
export type { CallUsage, Exchange } from "./CallUsage.js"

/** What a call could cost at most: the prompt's tokens and the output cap. Checked against budgets before the call. */
export interface CallEstimate {
  readonly promptId: PromptId
  readonly inputTokens: number
  readonly maxOutputTokens: number
  readonly maxCostUsd: number
}

export interface GenerateOptions {
  readonly maxOutputTokens?: number
  /** Files and images the call carries (a task's attachments: the plan and answer calls). */
  readonly attachments?: ReadonlyArray<Attached> | undefined
  /** A thinking budget for this call (a run's `thinkingTokens`): reserved in its output cap. */
  readonly thinkingTokens?: number | undefined
  /** The operator's instructions for the run (its input's `instructions`), after the prompt's own system text. */
  readonly instructions?: string | undefined
}

/**
 * One call as the layers around it see it (llm/CallLayers: a run's admission, recording, live text): its prompt
 * rendered, the output cap it asks for, where its text goes as it is written, how many requests it may send.
 */
export interface Call<I = unknown, O = unknown> {
  readonly model: Model
  readonly contract: PromptContract<I, O>
  readonly system: string
  readonly user: string
  readonly input: unknown
  /** The prompt and the answer go into the usage (its exchange) and the span. */
  readonly recording: boolean
  /** What the record and the span keep of the answer (a run's output guardrails on its answer calls). */
  readonly kept?: (<A>(value: A) => A) | undefined
  /** 1, then 2 for the call made again with a larger cap after an answer cut at its cap. */
  readonly attempt: number
  readonly maxOutputTokens: number
  /** The call made again: the cap the cut answer had (only a larger one is worth sending). */
  readonly cutAt?: number | undefined
  readonly attachments?: ReadonlyArray<Attached> | undefined
  readonly thinkingTokens?: number | undefined
  readonly onText?: ((text: string) => Effect.Effect<void>) | undefined
  /** How many requests the call may send, retries included, asked as it goes. */
  readonly maxRequests?: (() => number) | undefined
  /** Told as each request is sent. */
  readonly onRequest?: (() => void) | undefined
  readonly inputTokens: () => number
  /** What a chat provider bills for the call's input: the texts, the chat format's framing, the output schema. */
  readonly billedInputTokens: () => number
}

/**
 * What one call got, with its usage and the cap it was sent: the response and its answer decoded (none when cut at its
 * cap), or the provider's failure (its requests still count).
 */
export type Sent<O> =
  & { readonly usage: CallUsage; readonly cap: number }
  & (
    | {
      readonly response: CompletionResponse
      readonly decoded: Either.Either<O, ModelDecodeError> | undefined
      readonly failed?: undefined
    }
    | { readonly failed: ModelError }
  )

/** Sends a call to the model (the model's own, or with layers around it). */
export interface Send<E = never> {
  <I, O>(call: Call<I, O>): Effect.Effect<Sent<O>, ModelError | E>
}

/** A layer around every call of a model: what a run adds to it (llm/CallLayers), failing with its own `E`. */
export interface Around<E> {
  <E0>(send: Send<E0>): Send<E0 | E>
}

export interface WrapOptions {
  /** Each call's prompt and answer in its usage (its exchange) and its span. */
  readonly recordExchanges?: boolean | undefined
  /** What the record and the span keep of a prompt's answers (as they are when it gives none). */
  readonly keptOf?: ((promptId: string) => (<A>(value: A) => A) | undefined) | undefined
}

/** No layer: a model's calls as they are (`wrapped(asIs, { recordExchanges: true })` records their exchanges). */
export const asIs: Around<never> = (send) => send

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
  readonly generate: Generate<never>
  /**
   * This model with `around` around each of its calls: a run's model (admitted against its budget, recorded, its text
   * live) is its provider wrapped once. `recordExchanges`: each call's prompt and answer in its usage and span.
   */
  readonly wrapped: <E>(around: Around<E>, options?: WrapOptions) => {
    readonly generate: Generate<E>
  }
  /** Models of this service with no price: a cost cap cannot be enforced on their calls (a run asking one is refused). */
  readonly unpriced?: ReadonlyArray<string> | undefined
  /** How the provider asks now where it departs from its first choice (a format stepped down), for health. */
  readonly condition?: (() => string | undefined) | undefined
  /** The models of a fallback chain, in order (llm/Fallback); absent for a single model. */
  readonly members?: ReadonlyArray<Service> | undefined
  /**
   * Whether the provider takes an attachment of this media type (by URL, or its bytes); absent: it takes any (the
   * scripted model, a replay's recordings).
   */
  readonly accepts?: ((mediaType: string, byUrl: boolean) => boolean) | undefined
  /** The price a call of this prompt is made at, when it depends on the prompt (a model per phase: llm/ByPhase). */
  readonly priceFor?: ((promptId: string) => ModelPrice) | undefined
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

/** A call of a prompt: rendered, sent, its answer decoded. */
export type Generate<E> = <I, O>(
  contract: PromptContract<I, O>,
  input: I,
  options?: GenerateOptions
) => Effect.Effect<Generated<O>, ModelError | PromptInputError | E>

export class LanguageModel extends Context.Tag("aeon/LanguageModel")<LanguageModel, Service>() {}

/** A call's thinking budget: the run's, else the provider's setting (AEON_THINKING_TOKENS); reserved in its cap. */
const thinkingOf = (model: Model, options: GenerateOptions | undefined) =>
  options?.thinkingTokens ?? model.outputReserve ?? 0

/** The model a call goes to, as `make` was given it. */
export interface Model {
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
  /**
   * Output tokens the provider spends before the answer (a model's extended thinking): added to every call's output
   * cap, so the budget admits them and the answer keeps its own.
   */
  readonly outputReserve?: number | undefined
}

const marginOf = (model: Model) => (model.usage.unreported ? ESTIMATE_MARGIN : TOKENIZER_MARGIN)

const callOf = <I, O>(
  model: Model,
  contract: PromptContract<I, O>,
  input: I,
  options: GenerateOptions | undefined,
  recording: WrapOptions
) =>
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
    const system = systemPrompt(contract.system.template, options?.instructions)
    const user = renderTemplate(contract.user.template, recordOf(inputDecoded.right) ?? {})
    let counted: number | undefined
    const inputTokens = () => (counted ??= countTokens(system) + countTokens(user))
    const call: Call<I, O> = {
      model,
      contract,
      system,
      user,
      input: inputDecoded.right,
      recording: recording.recordExchanges === true,
      kept: recording.keptOf?.(contract.id),
      attempt: 1,
      maxOutputTokens: (options?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS) + thinkingOf(model, options),
      ...(options?.attachments?.length ? { attachments: options.attachments } : {}),
      ...(thinkingOf(model, options) > 0 ? { thinkingTokens: thinkingOf(model, options) } : {}),
      inputTokens,
      billedInputTokens: () => {
        return billedInputTokens(system, user, contract, options?.attachments ?? [], marginOf(model))
      }
    }
    return Effect.succeed(call)
  })

/** A bound on the call's billed input without counting its texts (llm/BilledTokens). */
export const billedBound = <I, O>(call: Call<I, O>) =>
  billedInputBound(call.system, call.user, call.contract, marginOf(call.model))

/**
 * One call sent to the model: its answer decoded (unless cut at its cap), its usage, the span annotated; a provider's
 * failure is what it got, with the usage of its requests.
 */
const send: Send = (call) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    let sent = 0
    const answer = yield* Effect.either(call.model.complete({
      promptId: call.contract.id,
      system: call.system,
      user: call.user,
      input: call.input,
      jsonSchema: outputJsonSchema(call.contract),
      ...(call.contract.jsonSchema !== undefined ? { callerSchema: true, strict: call.contract.strict === true } : {}),
      maxOutputTokens: call.maxOutputTokens,
      ...(call.attachments ? { attachments: call.attachments } : {}),
      ...(call.thinkingTokens ? { thinkingTokens: call.thinkingTokens } : {}),
      maxRequests: call.maxRequests,
      onRequest: () => void (sent++, call.onRequest?.()),
      onText: call.onText
    }))
    const cap = call.maxOutputTokens
    if (Either.isLeft(answer)) {
      const latencyMs = (yield* Clock.currentTimeMillis) - started
      return { failed: answer.left, cap, usage: failedUsage(call, answer.left, latencyMs, Math.max(1, sent)) }
    }
    const response = answer.right
    // a cut answer is not decoded: it is not an answer
    const decoded = response.truncated ? undefined : yield* Effect.either(decodeAnswer(call.contract, response.text))
    const latencyMs = (yield* Clock.currentTimeMillis) - started
    if (call.model.usage.provider && !reportsUsage(response)) call.model.usage.unreported = true
    const usage = usageOf(call, response, decoded, {
      latencyMs,
      requests: Math.max(1, sent),
      attempt: call.attempt,
      cap
    })
    yield* annotateSpan(call, response, usage.inputTokens, usage.outputTokens)
    return { response, usage, decoded, cap }
  })

/**
 * The call's answer. One cut at its cap is never taken as complete: the call is made once more with twice that cap;
 * the layers around it may lower the cap, or refuse it, which ends there. (One retry as a handler, not
 * `Effect.retry` on a Schedule: the schedule's driver is held by every call in flight — bench row 3, the live memory
 * of a run waiting on its model call.)
 */
const answered = <I, O, E>(first: Call<I, O>, sending: Send<E>) => {
  let cut: number | undefined
  const attempt: Effect.Effect<Generated<O>, ModelError | E> = Effect.suspend(() =>
    sending(cut === undefined ? first : { ...first, attempt: 2, maxOutputTokens: 2 * cut, cutAt: cut })
  ).pipe(
    Effect.flatMap((sent): Effect.Effect<Generated<O>, ModelError> => {
      if (sent.failed) return Effect.fail(sent.failed)
      const { cap, decoded, response, usage } = sent
      if (response.truncated || decoded === undefined) {
        cut = cap
        return Effect.fail(new ModelTruncatedError({ promptId: first.contract.id, maxOutputTokens: cap }))
      }
      return Either.isLeft(decoded)
        ? Effect.fail(decoded.left)
        : Effect.succeed({ output: decoded.right, text: response.text, usage })
    })
  )
  return attempt.pipe(Effect.catchIf((e) => e instanceof ModelTruncatedError && cut !== undefined, () => attempt))
}

/** Builds the service from a provider's raw completion function. */
export const make = (
  label: string,
  price: ModelPrice,
  complete: Service["complete"],
  notice?: string | undefined,
  /** Output tokens the provider spends before each answer (Model.outputReserve). */
  outputReserve?: number | undefined
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
    usage: { provider: label.includes(":"), unreported: false },
    ...(outputReserve ? { outputReserve } : {})
  }
  const generating = <E>(sending: Send<E>, recording: WrapOptions): Generate<E> => (contract, input, options) =>
    Effect.flatMap(callOf(target, contract, input, options, recording), (call) => answered(call, sending)).pipe(
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
  return {
    label,
    provider,
    model,
    price,
    complete,
    generate: generating(send, {}),
    wrapped: (around, options) => ({ generate: generating(around(send), options ?? {}) }),
    notice
  }
}
