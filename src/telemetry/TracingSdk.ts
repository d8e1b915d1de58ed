import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base"

/** The OpenTelemetry SDK behind Tracing, loaded on first use. */
export const layerWith = (processor: SpanProcessor) =>
  NodeSdk.layer(() => ({ resource: { serviceName: "aeon" }, spanProcessor: processor }))

export const layerOtlp = (url: string) => layerWith(new BatchSpanProcessor(new OTLPTraceExporter({ url })))
