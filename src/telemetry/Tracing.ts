import { Config, type ConfigError, Effect, Layer, Option } from "effect"
import { optionalPackage } from "../support/OptionalPackage.js"

/**
 * Tracing. The OpenTelemetry SDK is loaded only when it is used (an OTLP endpoint is configured, or a caller
 * passes a span processor): a process that exports no spans never pays for loading it.
 */
const sdk = optionalPackage(
  "@effect/opentelemetry @opentelemetry/sdk-trace-base @opentelemetry/sdk-trace-node @opentelemetry/exporter-trace-otlp-http",
  "Tracing (OTEL_EXPORTER_OTLP_ENDPOINT)",
  () => import("./TracingSdk.js")
).pipe(Effect.orDie)

/**
 * An OpenTelemetry span processor (`SpanProcessor` of @opentelemetry/sdk-trace-base), described here without naming
 * its package: the library's types stay whole for a user who installs no OpenTelemetry package.
 */
export interface SpanProcessorLike {
  forceFlush(): Promise<void>
  onStart(span: never, parentContext: never): void
  onEnd(span: never): void
  shutdown(): Promise<void>
}

/** Spans go to this processor (tests pass an in-memory one). */
export const layerWith = (processor: SpanProcessorLike): Layer.Layer<never> =>
  Layer.unwrapEffect(Effect.map(sdk, (m) => m.layerWith(processor)))

/** OTLP/HTTP export of every phase, model call and tool call when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing otherwise. */
export const layerConfig: Layer.Layer<never, ConfigError.ConfigError> = Layer.unwrapEffect(
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
