import { Effect, Fiber, ManagedRuntime } from "effect"
import { performance, PerformanceObserver } from "node:perf_hooks"
import { runTask } from "../src/run/Run.js"
import { engine, loopScript, now } from "./support.js"

/** `runs` one-pass runs of two steps, all started at once. */
export const manyRuns = (runs: number) =>
  Effect.forEach(
    Array.from({ length: runs }, (_, i) => i),
    () => runTask({ task: "Compute the running sums", mode: "FULL", budget: { ttl: 1 } }),
    { concurrency: "unbounded" }
  ) as Effect.Effect<ReadonlyArray<any>, any, any>

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
  const gc = gcPauses()
  const started = now()
  const cpuBefore = process.cpuUsage()
  const loopBefore = performance.eventLoopUtilization()
  const results = await runtime.runPromise(manyRuns(runs))
  const wall = now() - started
  // the process's CPU time (user + system) over the runs: what Aeon itself costs, the model being a timer
  const cpu = process.cpuUsage(cpuBefore)
  const cpuMs = (cpu.user + cpu.system) / 1000
  // the main thread's busy time (the rest of the CPU time is other threads': V8's GC helpers)
  const mainThreadMs = performance.eventLoopUtilization(loopBefore).active
  const pauses = gc.stop()
  clearInterval(sampler)
  await runtime.dispose()
  const live = await liveHeapPerRun(runs)
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
    perRunKb: ((peakHeap - baseline) / runs) / 1024,
    liveHeapMb: live.liveHeapMb,
    livePerRunKb: live.perRunKb,
    cpuMs,
    cpuPerRunMs: cpuMs / runs,
    mainThreadPerRunMs: mainThreadMs / runs,
    minorGcPerRunMs: pauses.minor / runs,
    majorGcPerRunMs: pauses.major / runs
  }
}

/** The main thread's GC pauses from now to `stop()`, in ms: scavenges (minor) and mark-compacts (major, and the rest). */
const gcPauses = () => {
  const pauses = { minor: 0, major: 0 }
  const add = (entries: ReadonlyArray<PerformanceEntry>) => {
    for (const entry of entries) {
      // NODE_PERFORMANCE_GC_MINOR is 1
      if ((entry as { detail?: { kind?: number } }).detail?.kind === 1) pauses.minor += entry.duration
      else pauses.major += entry.duration
    }
  }
  const observer = new PerformanceObserver((list) => add(list.getEntries()))
  observer.observe({ entryTypes: ["gc"] })
  return {
    stop: () => {
      add(observer.takeRecords())
      observer.disconnect()
      return pauses
    }
  }
}

/**
 * What the runs keep alive (the peak above also counts garbage not yet collected): `runs` runs all waiting
 * on their first model call, after a full GC (needs node --expose-gc; NaN without it).
 */
const liveHeapPerRun = async (runs: number) => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) return { liveHeapMb: Number.NaN, perRunKb: Number.NaN }
  const runtime = ManagedRuntime.make(engine(() => loopScript(2, 1, 60_000)))
  await runtime.runPromise(Effect.void as Effect.Effect<void, any, any>)
  gc()
  const before = process.memoryUsage().heapUsed
  const fiber = runtime.runFork(manyRuns(runs))
  await new Promise((r) => setTimeout(r, 1_000))
  gc()
  const during = process.memoryUsage().heapUsed
  await runtime.runPromise(Fiber.interrupt(fiber) as Effect.Effect<any, any, any>)
  await runtime.dispose()
  return { liveHeapMb: during / 2 ** 20, perRunKb: (during - before) / runs / 1024 }
}
