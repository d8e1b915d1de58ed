import { Effect, ManagedRuntime } from "effect"
import { runTask } from "../src/run/Run.js"
import { engine, loopScript, now } from "./support.js"

/** `runs` runs at once in one process on a model that takes `latencyMs` per call; no store. */
export const concurrency = async (runs = 1000, latencyMs = 200) => {
  const runtime = ManagedRuntime.make(engine(() => loopScript(2, 1, latencyMs)))
  await runtime.runPromise(runTask({ task: "warm up", mode: "FULL" }) as Effect.Effect<any, any, any>)
  global.gc?.()
  const baseline = process.memoryUsage().heapUsed
  let peakHeap = baseline
  let peakRss = process.memoryUsage().rss
  const sampler = setInterval(() => {
    const m = process.memoryUsage()
    peakHeap = Math.max(peakHeap, m.heapUsed)
    peakRss = Math.max(peakRss, m.rss)
  }, 20)
  const started = now()
  const results = await runtime.runPromise(Effect.forEach(
    Array.from({ length: runs }, (_, i) => i),
    () => runTask({ task: "Compute the running sums", mode: "FULL", budget: { ttl: 1 } }),
    { concurrency: "unbounded" }
  ) as Effect.Effect<ReadonlyArray<any>, any, any>)
  const wall = now() - started
  clearInterval(sampler)
  await runtime.dispose()
  const calls = results[0].usage.llmCalls as number
  // each run's calls are sequential: the fastest possible run takes calls × latency
  const bound = calls * latencyMs
  return {
    runs,
    converged: results.filter((r) => r.status === "CONVERGED").length,
    callsPerRun: calls,
    wallMs: wall,
    boundMs: bound,
    overBound: wall / bound - 1,
    peakHeapMb: peakHeap / 2 ** 20,
    peakRssMb: peakRss / 2 ** 20,
    perRunKb: ((peakHeap - baseline) / runs) / 1024
  }
}
