import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, ManagedRuntime, Option, Tracer } from "effect"
import { Session } from "node:inspector/promises"
import { unexportedTracer } from "../src/telemetry/Span.js"
import { manyRuns } from "./Concurrency.js"
import { overheadRunner } from "./Overhead.js"
import { engine, loopScript, median, now, takeTurns } from "./support.js"

/**
 * Where a run's time goes, for the rows whose targets are missed (issue 19 asks that a miss be explained by a
 * profile): V8's CPU profile of row 3's 1,000 concurrent runs and its allocation profile, both by part of the
 * process; the run's own spans (each phase, step, model call and check) by their self time; row 6's store, its
 * share at 10 × 3 and what it writes. Figures, not assertions.
 */

/** The part of the process a profile frame's source belongs to; undefined for a native (it counts as its caller). */
const partOf = (url: string, functionName: string): string | undefined => {
  if (functionName === "(garbage collector)") return "GC on the main thread"
  if (functionName === "(program)" || functionName === "(root)") return "V8 (compiling, other)"
  if (url === "") return undefined
  if (/\/node_modules\/effect\/.*(\/(ParseResult|Schema|SchemaAST|JSONSchema)\.js|\/internal\/schema\/)/.test(url)) {
    return "Effect Schema (decode, encode)"
  }
  if (url.includes("/node_modules/effect/")) return "Effect runtime (fibers, generators, fiber refs)"
  if (url.includes("/src/store/")) return "Aeon's store (SQLite, JSON)"
  if (url.includes("/src/")) return "Aeon's own code"
  if (url.includes("/node_modules/")) return "other libraries"
  return "Node (timers, the bench)"
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string }
  readonly children?: ReadonlyArray<number>
}

/** Each node's part: its own, or (a native) its caller's. */
const partsOfNodes = (nodes: ReadonlyArray<ProfileNode>) => {
  const parent = new Map<number, number>()
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const parts = new Map<number, string>()
  const resolve = (id: number): string => {
    const known = parts.get(id)
    if (known !== undefined) return known
    const n = byId.get(id)!
    const up = parent.get(id)
    const part = partOf(n.callFrame.url, n.callFrame.functionName) ?? (up === undefined ? "Node" : resolve(up))
    parts.set(id, part)
    return part
  }
  for (const n of nodes) resolve(n.id)
  return parts
}

/** Shares that add to 1, largest first. */
const shares = (totals: Map<string, number>) => {
  const all = [...totals.values()].reduce((a, b) => a + b, 0)
  return [...totals].sort((a, b) => b[1] - a[1]).map(([part, v]) => ({ part, share: v / all }))
}

/** Row 3's runs under V8's sampling CPU profiler: the main thread's busy samples by part (idle left out). */
const cpuByPart = async (runs: number) => {
  const runtime = ManagedRuntime.make(engine(() => loopScript(2, 1, 200)))
  await runtime.runPromise(manyRuns(50))
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.setSamplingInterval", { interval: 250 })
  await session.post("Profiler.start")
  await runtime.runPromise(manyRuns(runs))
  const { profile } = await session.post("Profiler.stop")
  session.disconnect()
  await runtime.dispose()
  const parts = partsOfNodes(profile.nodes as ReadonlyArray<ProfileNode>)
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id))
  const totals = new Map<string, number>()
  for (const id of profile.samples ?? []) {
    if (!idle.has(id)) totals.set(parts.get(id)!, (totals.get(parts.get(id)!) ?? 0) + 1)
  }
  return shares(totals)
}

interface HeapNode {
  readonly callFrame: { readonly functionName: string; readonly url: string }
  readonly selfSize: number
  readonly children: ReadonlyArray<HeapNode>
}

/** Bytes allocated by `runs` runs of 2 steps × 1 pass one after the other (collected ones included), by part. */
const allocationByPart = async (runs: number) => {
  const { dispose, once } = overheadRunner({ store: false, steps: 2, passes: 1 })
  for (let i = 0; i < 30; i++) await once()
  const session = new Session()
  session.connect()
  await session.post("HeapProfiler.enable")
  // the objects the GCs collected are kept in the profile: what was allocated, not what survived
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true
  } as never)
  for (let i = 0; i < runs; i++) await once()
  const { profile } = await session.post("HeapProfiler.stopSampling")
  session.disconnect()
  await dispose()
  const totals = new Map<string, number>()
  const walk = (node: HeapNode, inherited: string) => {
    const part = partOf(node.callFrame.url, node.callFrame.functionName) ?? inherited
    totals.set(part, (totals.get(part) ?? 0) + node.selfSize)
    for (const child of node.children) walk(child, part)
  }
  walk(profile.head as unknown as HeapNode, "Node")
  const bytes = [...totals.values()].reduce((a, b) => a + b, 0)
  return { kbPerRun: bytes / runs / 1024, parts: shares(totals) }
}

/** What each span is part of (the first whose test its name passes): the run's phases and steps, its calls, its checks. */
const spanGroups: ReadonlyArray<readonly [(name: string) => boolean, string]> = [
  [(n) => n.startsWith("chat "), "model calls (input decoded, prompt rendered, answer decoded, LlmCalled)"],
  [
    (n) => n.startsWith("execute_tool ") || n === "ToolRegistry.invoke" || n === "Executor.step",
    "steps (context, tool call, StepStarted/StepFinished)"
  ],
  [(n) => n.startsWith("SemanticValidator."), "plan checks (deterministic and semantic)"],
  [(n) => n === "ConvergenceEngine.assess", "convergence assessment"],
  [(n) => n === "RecursivePlanner.refine", "refinement"],
  [(n) => n.startsWith("AdaptiveDepth."), "task profile"],
  [(n) => n === "AnswerSynthesis.synthesize", "answer synthesis"],
  [(n) => n === "Aeon.run", "run set-up and result (input decoded, result built)"]
]
const spanGroup = (name: string) =>
  spanGroups.find(([test]) => test(name))?.[1] ?? "kernel (phases, events, the run's record)"

/**
 * Effect's own tracer, its spans' ends timed: each span's wall time less its children's, its self time (the runs are
 * sequential), summed by group while `record(true)`.
 */
const selfTimeTracer = () => {
  const self = new Map<string, number>()
  let recording = false
  const childTime = new WeakMap<object, number>()
  const tracer = Tracer.make({
    span(name, parent, context, links, startTime, kind, options) {
      const span = unexportedTracer.span(name, parent, context, links, startTime, kind, options)
      const started = now()
      const parentSpan = Option.getOrUndefined(parent)
      const end = span.end
      span.end = (endTime, exit) => {
        const took = now() - started
        if (parentSpan) childTime.set(parentSpan, (childTime.get(parentSpan) ?? 0) + took)
        const group = spanGroup(name)
        if (recording) self.set(group, (self.get(group) ?? 0) + took - (childTime.get(span) ?? 0))
        end.call(span, endTime, exit)
      }
      return span
    },
    context: unexportedTracer.context
  })
  return { tracer, self, record: (on: boolean) => void (recording = on) }
}

/** A run's wall time by its spans' self time, one run after another on an instant model; the wall outside them too. */
const spansOfRun = async (steps: number, passes: number, runs: number) => {
  const { record, self, tracer } = selfTimeTracer()
  const { dispose, once } = overheadRunner({ store: false, steps, passes, tracer })
  for (let i = 0; i < 30; i++) await once()
  record(true)
  let wall = 0
  for (let i = 0; i < runs; i++) wall += (await once()).wall
  record(false)
  await dispose()
  const wallUs = (wall / runs) * 1000
  const inSpans = [...self.values()].reduce((a, b) => a + b, 0) / runs * 1000
  const groups = [...self].map(([group, ms]) => ({ group, usPerRun: (ms / runs) * 1000 }))
  groups.push({ group: "outside the run's spans (prepare, the bench reading the log)", usPerRun: wallUs - inSpans })
  return { steps, passes, wallUs, groups: groups.sort((a, b) => b.usPerRun - a.usPerRun) }
}

/** Row 6's loop at `steps` × `passes`, with and without the store, run by run in one process; what the store wrote. */
const storeShare = async (steps: number, passes: number, rounds: number) => {
  const stored = overheadRunner({ store: true, steps, passes })
  const bare = overheadRunner({ store: false, steps, passes })
  const perStep = (r: typeof bare) => async () => {
    const s = await r.once()
    return s.wall / s.executed
  }
  const [withStore, without] = (await takeTurns([perStep(stored), perStep(bare)], 10, rounds)).map(median) as [
    number,
    number
  ]
  const written = await stored.runtime.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.all({
        runs: sql<{ n: number }>`SELECT count(*) AS n FROM runs`,
        events: sql<{ n: number; bytes: number }>`SELECT count(*) AS n, sum(length(payload)) AS bytes FROM run_events`,
        calls: sql<{ bytes: number }>`SELECT sum(length(call)) AS bytes FROM llm_calls`
      })) as Effect.Effect<any, unknown, never>
  )
  await Promise.all([stored.dispose(), bare.dispose()])
  const runs = Number(written.runs[0].n)
  return {
    steps,
    passes,
    storeMsPerStep: withStore - without,
    bareMsPerStep: without,
    storedMsPerStep: withStore,
    eventsPerRun: Number(written.events[0].n) / runs,
    eventKbPerRun: Number(written.events[0].bytes) / runs / 1024,
    callKbPerRun: Number(written.calls[0].bytes ?? 0) / runs / 1024
  }
}

export const breakdown = async (quick: boolean) => ({
  cpu: await cpuByPart(quick ? 200 : 1000),
  allocation: await allocationByPart(quick ? 50 : 300),
  spans2x1: await spansOfRun(2, 1, quick ? 100 : 500),
  spans10x3: await spansOfRun(10, 3, quick ? 30 : 150),
  store10x3: await storeShare(10, 3, quick ? 20 : 100)
})
