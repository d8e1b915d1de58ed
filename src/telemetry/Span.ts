import { Context, DefaultServices, Effect, Tracer } from "effect"

/** The tracer of a runtime nobody gave one: Effect's own, whose spans no exporter ever sees. */
export const unexportedTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/**
 * `Effect.withSpan`, made only when a tracer that keeps spans is set (the OpenTelemetry layer of telemetry/Tracing, or
 * a library user's own `Layer.setTracer`). Without one, the effect runs as it is: a span costs an exit handler and a
 * scoped context change on the stack of every phase, step and call, and nothing would read it (a run's
 * callSite, its logs and its events do not come from spans). Bench row 3 (`bench/one.ts concurrency full`) measures
 * it: live memory per waiting run and CPU per run fell by about a third without them.
 */
export const traced =
  (name: string, options?: Tracer.SpanOptions) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime<A, E, R>((fiber) =>
      Context.get(fiber.getFiberRef(DefaultServices.currentServices), Tracer.Tracer) === unexportedTracer
        ? self
        : Effect.withSpan(self, name, options)
    )
