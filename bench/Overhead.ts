import { Effect, Layer, ManagedRuntime, type Tracer } from "effect"
import { prepare } from "../src/run/Run.js"
import { engine, fmt, loopScript, median, memoryStore, now } from "./support.js"

interface OverheadOptions {
  readonly store: boolean
  readonly steps?: number
  readonly passes?: number
  readonly iterations?: number
  readonly warmup?: number
  readonly delayMs?: number
  /** A tracer for the runs' spans (bench/Breakdown times them); none: no spans are made. */
  readonly tracer?: Tracer.Tracer
  /**
   * Memory across runs (the default for a user's runs: on). Off where the figure is the engine's and its store's
   * against a peer that keeps no memory (rows 1 and 6); the same task run again would otherwise start from its last
   * run's plan.
   */
  readonly memory?: boolean
}

/** One process's Aeon on the loop: `once` runs it (steps × passes) and measures the run; `dispose` ends it. */
export const overheadRunner = (options: OverheadOptions) => {
  const steps = options.steps ?? 10
  const passes = options.passes ?? 3
  const model = engine(() => loopScript(steps, passes, options.delayMs))
  const withStore = options.store ? Layer.merge(model, memoryStore) : model
  const layer = options.tracer ? Layer.merge(withStore, Layer.setTracer(options.tracer)) : withStore
  const runtime = ManagedRuntime.make(layer as Layer.Layer<any, any>)
  const once = async () => {
    const started = now()
    const { result, events } = await runtime.runPromise(Effect.gen(function*() {
      const p = yield* prepare({
        task: "Compute the running sums",
        mode: "FULL",
        memory: options.memory ?? false,
        budget: { ttl: passes, maxSteps: 100_000, maxLlmCalls: 100_000, maxTokens: 100_000_000 }
      })
      const result = yield* p.execute
      return { result, events: yield* p.events.log }
    }) as Effect.Effect<any, any, any>)
    const wall = now() - started
    if (result.status !== "CONVERGED") {
      throw new Error(`bench run did not converge: ${result.terminationReason} ${result.error ?? ""}`)
    }
    const executed = events.filter((e: any) => e._tag === "StepFinished").length
    const llmCalls = result.usage.llmCalls as number
    // the model's time as Aeon measured it around each call (a slow model's timer fires a little late: that is
    // the model's time, not Aeon's); an instant model's is zero
    const modelMs = (options.delayMs ?? 0) > 0
      ? events.reduce((t: number, e: any) => t + (e._tag === "LlmCalled" ? e.latencyMs : 0), 0)
      : 0
    return { wall, aeon: wall - modelMs, executed, passes: result.history.passes.length - 1, llmCalls }
  }
  return { once, runtime, dispose: () => runtime.dispose() }
}

/** Runs the 10-step, 3-pass loop `n` times on an instant model; wall time is all Aeon's own. */
export const overhead = async (options: OverheadOptions) => {
  const { dispose, once } = overheadRunner(options)
  // warm-up (JIT, tokenizer ranks, PGlite): the figure is the steady state of a process that has run a few runs
  for (let i = 0; i < (options.warmup ?? 3); i++) await once()
  const samples = []
  for (let i = 0; i < (options.iterations ?? 20); i++) samples.push(await once())
  await dispose()
  const wall = median(samples.map((s) => s.wall))
  const aeon = median(samples.map((s) => s.aeon))
  const s = samples[0]!
  return {
    wallMs: wall,
    steps: s.executed,
    passes: s.passes,
    llmCalls: s.llmCalls,
    perStepMs: aeon / s.executed,
    perPassMs: aeon / s.passes,
    aeonShare: aeon / wall
  }
}

export const describeOverhead = (r: Awaited<ReturnType<typeof overhead>>) =>
  `${r.steps} steps, ${r.passes} passes, ${r.llmCalls} LLM calls: ${fmt(r.wallMs, 1)} ms/run, ${
    fmt(r.perStepMs)
  } ms/step, ${fmt(r.perPassMs)} ms/pass`
