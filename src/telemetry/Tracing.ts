import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Config, Effect, Layer, Option } from "effect"

/**
 * Tracing. The OpenTelemetry SDK is loaded only when it is used (an OTLP endpoint is configured, or a caller
 * passes a span processor): a process that exports no spans never pays for loading it.
 */
const sdk = Effect.promise(() => import("./TracingSdk.js"))

/** Spans go to this processor (tests pass an in-memory one). */
export const layerWith = (processor: SpanProcessor) =>
  Layer.unwrapEffect(Effect.map(sdk, (m) => m.layerWith(processor)))

/** OTLP/HTTP export of every phase, model call and tool call when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing otherwise. */
export const layerConfig = Layer.unwrapEffect(
  Effect.gen(function*() {
    const endpoint = yield* Config.option(
      Config.string("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(
        Config.withDescription("OTLP/HTTP endpoint (e.g. http://localhost:4318); spans are exported when set")
      )
    )
    if (Option.isNone(endpoint)) return Layer.empty
    const url = `${endpoint.value.replace(/\/$/, "")}/v1/traces`
    return (yield* sdk).layerOtlp(url)
  })
)
