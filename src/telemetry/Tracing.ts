import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Config, Effect, Layer, Option } from "effect"

/** Spans go to this processor (tests pass an in-memory one). */
export const layerWith = (processor: SpanProcessor) =>
  NodeSdk.layer(() => ({ resource: { serviceName: "aeon" }, spanProcessor: processor }))

/** OTLP/HTTP export of every phase, model call and tool call when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing otherwise. */
export const layerConfig = Layer.unwrapEffect(
  Effect.gen(function*() {
    const endpoint = yield* Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(
      Config.withDescription("OTLP/HTTP endpoint (e.g. http://localhost:4318); spans are exported when set")
    ))
    if (Option.isNone(endpoint)) return Layer.empty
    const url = `${endpoint.value.replace(/\/$/, "")}/v1/traces`
    return layerWith(new BatchSpanProcessor(new OTLPTraceExporter({ url })))
  })
)
