import { describe, expect, it } from "@effect/vitest"
import { type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { ConfigProvider, Deferred, Effect, Exit, Layer, Option, Tracer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { runTask } from "../../src/index.js"
import { traced } from "../../src/telemetry/Span.js"
import * as Tracing from "../../src/telemetry/Tracing.js"
import { scripted } from "../support/engine.js"
import { convergingScript } from "../support/scripts.js"

describe("tracing", () => {
  it.live("every phase, model call and tool call is a span with the run, pass, phase and gen_ai attributes", () =>
    Effect.gen(function*() {
      // kept past the SDK's shutdown (the in-memory exporter of the SDK clears itself on shutdown)
      const spans: Array<ReadableSpan> = []
      const exporter = {
        export: (batch: Array<ReadableSpan>, done: (r: { code: number }) => void) => {
          spans.push(...batch)
          done({ code: 0 })
        },
        shutdown: () => Promise.resolve()
      }
      const { layer } = scripted(convergingScript(), { fallback: false })
      const r = yield* runTask({ task: "Compute 6 * 7 and explain it", mode: "FULL" }).pipe(
        Effect.provide(Layer.mergeAll(layer, Tracing.layerWith(new SimpleSpanProcessor(exporter))))
      )
      const named = (n: string) => spans.filter((s) => s.name === n)
      expect(named("Phase.PLAN")[0]!.attributes).toMatchObject({
        "aeon.run_id": r.runId,
        "aeon.pass": 0,
        "aeon.phase": "PLAN"
      })
      expect(named("Phase.EXECUTE")[0]!.attributes).toMatchObject({ "aeon.pass": 1 })
      expect(named("Phase.EVALUATE")).toHaveLength(1)
      // the OpenTelemetry GenAI conventions: "chat {model}" per model call, "execute_tool {name}" per tool call
      const model = named("chat scripted")
      expect(model.length).toBe(r.usage.llmCalls)
      expect(model[0]!.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "aeon.scripted",
        "gen_ai.request.model": "scripted",
        "gen_ai.response.model": "scripted",
        "gen_ai.response.finish_reasons": ["stop"],
        "aeon.prompt_id": "taskprofile_inference_user"
      })
      expect(model[0]!.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0)
      expect(model[0]!.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0)
      // with recording on (the default), the prompt and the answer are events of the span
      expect(model[0]!.events.map((e) => e.name)).toEqual([
        "gen_ai.system.message",
        "gen_ai.user.message",
        "gen_ai.choice"
      ])
      expect(String(model[0]!.events[1]!.attributes!.content)).toContain("Compute 6 * 7 and explain it")
      expect(named("execute_tool calculator")[0]!.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "calculator",
        "aeon.step_id": "s1"
      })
      expect(named("Executor.step")[0]!.attributes).toMatchObject({ "aeon.run_id": r.runId, "aeon.pass": 1 })
    }))

  it.live("exports over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, and not otherwise", () =>
    Effect.gen(function*() {
      const received: Array<string> = []
      const exported = yield* Deferred.make<void>()
      const server = createServer((req, res) => {
        received.push(req.url ?? "")
        Deferred.unsafeDone(exported, Exit.void)
        req.resume()
        req.on("end", () => res.writeHead(200).end("{}"))
      })
      yield* Effect.promise(() => new Promise<void>((r) => server.listen(0, "127.0.0.1", r)))
      const port = (server.address() as AddressInfo).port
      const run = (env: Record<string, string>) => {
        const { layer } = scripted(convergingScript(), { fallback: false })
        const tracing = Tracing.layerConfig.pipe(
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
        )
        return Effect.scoped(
          Layer.build(tracing).pipe(
            Effect.flatMap((ctx) =>
              runTask({ task: "Compute 6 * 7 and explain it", mode: "FULL" }).pipe(
                Effect.provide(layer),
                Effect.provide(ctx)
              )
            )
          )
        )
      }
      yield* run({})
      expect(received).toEqual([])
      yield* run({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` })
      yield* Deferred.await(exported).pipe(Effect.timeout("5 seconds"), Effect.ignore)
      expect(received[0]).toBe("/v1/traces")
      server.close()
    }))
  it.live("a tracer of the user's own (Layer.setTracer) gets every span; with none set, no span is made", () =>
    Effect.gen(function*() {
      const noSpan = yield* Effect.option(Effect.currentSpan).pipe(traced("unexported"))
      expect(Option.isNone(noSpan)).toBe(true)
      // the user's tracer: Effect's own, wrapped to note each span it is asked for
      const own = yield* Effect.tracer
      const asked: Array<string> = []
      const tracer = Tracer.make({ ...own, span: (name, ...rest) => (asked.push(name), own.span(name, ...rest)) })
      const inner = yield* Effect.currentSpan.pipe(traced("kept", { attributes: { a: 1 } }), Effect.withTracer(tracer))
      expect(inner.name).toBe("kept")
      expect(inner.attributes.get("a")).toBe(1)
      const { layer } = scripted(convergingScript(), { fallback: false })
      const r = yield* runTask({ task: "Compute 6 * 7 and explain it", mode: "FULL" }).pipe(
        Effect.provide(Layer.merge(layer, Layer.setTracer(tracer)))
      )
      expect(asked.filter((n) => n === "chat scripted")).toHaveLength(r.usage.llmCalls)
      expect(asked).toContain("Executor.step")
      expect(asked).toContain("execute_tool calculator")
    }))
})
