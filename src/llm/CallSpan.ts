/** A model call's span after its answer, as the OpenTelemetry GenAI conventions name things (llm/LanguageModel). */
import { Clock, Effect, Option, Tracer } from "effect"
import { finishReasonOf } from "./CallUsage.js"
import type { CompletionResponse } from "./Completion.js"

/** What of a call its span says. */
export interface SpannedCall {
  readonly model: { readonly model: string; readonly provider: string }
  readonly recording: boolean
  readonly system: string
  readonly user: string
  readonly kept?: (<A>(value: A) => A) | undefined
}

/**
 * The call's span after the answer: the GenAI conventions' usage and response, the content when recorded. Set on
 * the span directly, in one step: `Effect.annotateCurrentSpan` per attribute in an `Effect.gen` added about a
 * quarter to a model call's own cost in Aeon (measured in rounds of 20,000 calls). The span is looked up, not asked for with
 * `Effect.currentSpan`, which fails with a new NoSuchElementException (an Error and its stack) when there is none,
 * as there is none when no tracer keeps spans (telemetry/Span).
 */
export const annotateSpan = (
  call: SpannedCall,
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
        message: call.kept ? call.kept(response.text) : response.text
      })
    })
  })
