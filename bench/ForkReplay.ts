import { Effect, Layer, ManagedRuntime } from "effect"
import * as Aeon from "../src/Aeon.js"
import { LanguageModel } from "../src/llm/LanguageModel.js"
import type * as LM from "../src/llm/LanguageModel.js"
import * as Scripted from "../src/llm/Scripted.js"
import * as Fork from "../src/run/Fork.js"
import { prepare } from "../src/run/Run.js"
import * as Database from "../src/store/Database.js"
import { RunStore } from "../src/store/RunStore.js"
import { loopScript, median } from "./support.js"

/**
 * Row 16: a recorded run of about 100 events (14 steps, 2 passes, scripted answers, the embedded store in memory)
 * forked and replayed to its end from its recordings, against the source run: its engine time (the model answering at
 * once) and its time with a model that takes `modelMs` a call (the wait a real provider adds). Forked at its start (the
 * whole run replayed), half-way, and at its last event before the end; the fork's model fails if it is asked.
 */
export const forkReplay = async (rounds: number, modelMs: number) => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(Aeon.layerWithTools(), Database.layer({ dataDir: "memory" }))
  )
  const model = (delayMs: number) => Scripted.make(loopScript(14, 2, delayMs), undefined, { record: false }).service
  const asked: Array<string> = []
  const forbidden: LM.Service = { ...model(0), complete: (r) => (asked.push(r.promptId), Effect.dieMessage("asked")) }
  const timed = <A>(effect: Effect.Effect<A, unknown, any>) =>
    runtime.runPromise(Effect.gen(function*() {
      const started = performance.now()
      const value = yield* effect
      return { value, ms: performance.now() - started }
    }) as Effect.Effect<{ value: A; ms: number }>)
  const source = (delayMs: number) =>
    timed(
      Effect.gen(function*() {
        const p = yield* prepare({ task: "Compute the running sums", mode: "FULL", budget: { ttl: 2 } })
        yield* p.execute
        return { runId: p.runId, events: yield* (yield* RunStore).events(p.runId) }
      }).pipe(Effect.provideService(LanguageModel, model(delayMs)))
    )
  const forked = (runId: string, atSeq: number) =>
    timed(
      Effect.flatMap(Fork.fork(runId, atSeq), (p) => p.execute).pipe(Effect.provideService(LanguageModel, forbidden))
    )
  const samples = {
    engine: [] as Array<number>,
    withModel: [] as Array<number>,
    start: [] as Array<number>,
    middle: [] as Array<number>,
    end: [] as Array<number>
  }
  let events = 0
  for (let i = 0; i < rounds + 3; i++) {
    const s = await source(0)
    events = s.value.events.length
    const seqs = s.value.events.map((e) => e.seq)
    const start = s.value.events.find((e) => e._tag === "RunStarted")!.seq
    const [a, b, c] = [
      await forked(s.value.runId, start),
      await forked(s.value.runId, seqs[Math.floor(seqs.length / 2)]!),
      await forked(s.value.runId, seqs.at(-2)!)
    ]
    if (i < 3) continue // warm-up
    samples.engine.push(s.ms)
    samples.start.push(a.ms)
    samples.middle.push(b.ms)
    samples.end.push(c.ms)
  }
  for (let i = 0; i < Math.min(3, rounds); i++) samples.withModel.push((await source(modelMs)).ms)
  await runtime.dispose()
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])) as Record<
    keyof typeof samples,
    number
  >
  return { events, rounds, modelMs, ...m, modelCalls: asked.length }
}
