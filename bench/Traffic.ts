import { tool } from "@langchain/core/tools"
import { createReactAgent } from "@langchain/langgraph/prebuilt"
import { ChatOpenAI } from "@langchain/openai"
import { Effect, Layer, ManagedRuntime } from "effect"
import { countTokens } from "gpt-tokenizer/encoding/cl100k_base"
import { z } from "zod"
import * as Aeon from "../src/Aeon.js"
import { LanguageModel } from "../src/llm/LanguageModel.js"
import * as OpenAi from "../src/llm/OpenAi.js"
import { runTask } from "../src/run/Run.js"
import * as Database from "../src/store/Database.js"
import { evaluate } from "../src/tools/Calculator.js"
import { now } from "./support.js"
import { type Exchange, startTrafficStub, type TrafficStub, TYPED_SCHEMA } from "./TrafficStub.js"
import { type TaskClass, TASKS, type TrafficTask } from "./TrafficTasks.js"

/**
 * The traffic bench (issue 41 item 7): each task through Aeon (AUTO and FULL, through the real `openai` client) and
 * through LangGraph's prebuilt ReAct agent (`createReactAgent`, `ChatOpenAI`), against one stub playing the same
 * competent model for both (TrafficStub). The ReAct model runs both ways on fan-outs: a layer's independent calls in
 * one response, as current models make them, and one at a time, as local servers without parallel tool calls do.
 * Per class: calls, input and output tokens as the stub billed them, wall time, and the share of input tokens a
 * provider's prefix cache could serve.
 */

export type Framework = "aeonAuto" | "aeonFull" | "reactParallel" | "reactOneAtATime"

export interface Figures {
  calls: number
  inputTokens: number
  outputTokens: number
  wallMs: number
  /** Input tokens in a prefix an earlier request of the same run already sent. */
  cacheableTokens: number
  /** The critical path's model calls: 2 for a task with tools (plan, answer), 1 without. */
  floorCalls: number
}

const empty = (): Figures => ({
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  wallMs: 0,
  cacheableTokens: 0,
  floorCalls: 0
})

/** The tokens of each request's longest prefix that an earlier request of the same run sent. */
const cacheable = (exchanges: ReadonlyArray<Exchange>) =>
  exchanges.reduce((n, e, i) => {
    let best = 0
    for (let j = 0; j < i; j++) {
      const other = exchanges[j]!.prompt
      let k = 0
      while (k < e.prompt.length && k < other.length && e.prompt[k] === other[k]) k++
      best = Math.max(best, k)
    }
    return n + (best > 0 ? countTokens(e.prompt.slice(0, best)) : 0)
  }, 0)

/** The same tools for the ReAct agent: Aeon's calculator's arithmetic, a memory of its own. */
const reactTools = () => {
  const memory = new Map<string, unknown>()
  return [
    tool(({ expression }: { expression: string }) => String(evaluate(expression)), {
      name: "calculator",
      description: "Evaluates an arithmetic expression (+ - * / % ^ and parentheses) exactly.",
      schema: z.object({ expression: z.string() })
    }),
    tool(
      (
        { key, value }: { key: string; value: unknown }
      ) => (memory.set(key, value), JSON.stringify({ key, written: true })),
      {
        name: "memory_write",
        description: "Stores a value under a key in the run's short-term memory.",
        schema: z.object({ key: z.string(), value: z.any() })
      }
    ),
    tool(({ key }: { key: string }) => JSON.stringify(memory.get(key) ?? null), {
      name: "memory_read",
      description: "Reads a value from the run's short-term memory (found false when absent).",
      schema: z.object({ key: z.string() })
    })
  ]
}

const viaReact = async (stub: TrafficStub, task: TrafficTask) => {
  const llm = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "bench", configuration: { baseURL: stub.baseURL } })
  const agent = createReactAgent({ llm, tools: reactTools() })
  const out = await agent.invoke({ messages: [{ role: "user", content: task.task }] })
  const last = out.messages.at(-1)?.content
  if (typeof last !== "string" || last !== task.answer) {
    throw new Error(`ReAct did not answer ${task.id}: ${String(last)}`)
  }
}

/** The stub as Aeon's model, through the real `openai` client. */
const stubModel = (stub: TrafficStub) =>
  OpenAi.make({ baseURL: stub.baseURL, apiKey: "bench", model: "gpt-4o-mini", timeoutMs: 60_000, maxRetries: 0 })

const viaAeon = (stub: TrafficStub, task: TrafficTask, mode: "AUTO" | "FULL", outputSchema?: object) => {
  const model = stubModel(stub)
  return Effect.runPromise(
    runTask({ task: task.task, mode, budget: { maxCostUsd: 100 }, ...(outputSchema ? { outputSchema } : {}) }).pipe(
      Effect.provide(Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model)))
    )
  ).then((r) => {
    // the answer the model gave, or its plan's answer filled in (numbers without thousands separators)
    const plain = (text: string) => text.replace(/(\d),(?=\d{3})/g, "$1")
    const answer = outputSchema
      ? (r.finalAnswer?.data as { answer?: string } | undefined)?.answer ?? ""
      : r.finalAnswer?.answerText ?? ""
    if (r.status !== "CONVERGED" || !plain(answer).includes(plain(task.answer))) {
      throw new Error(`Aeon ${mode} did not converge on ${task.id}: ${r.status} ${r.error ?? ""}`)
    }
  })
}

/** The figures the stub billed since its last reset. */
const billedNow = (stub: TrafficStub, wallMs: number, floorCalls: number): Figures => ({
  calls: stub.exchanges.length,
  inputTokens: stub.exchanges.reduce((n, e) => n + e.inputTokens, 0),
  outputTokens: stub.exchanges.reduce((n, e) => n + e.outputTokens, 0),
  wallMs,
  cacheableTokens: cacheable(stub.exchanges),
  floorCalls
})

export type TypedVariant = "untyped" | "typed" | "typedRepaired"

/**
 * Typed results (#55): each task through Aeon AUTO untyped, with an output schema (TYPED_SCHEMA) whose first value
 * validates, and with one whose first value breaks it (repaired once) — the calls and tokens the stub billed.
 */
export const typedTraffic = async (latencyScale = 1) => {
  const stub = await startTrafficStub(TASKS, latencyScale)
  try {
    const byClass: Record<string, Record<TypedVariant, Figures> & { tasks: number }> = {}
    for (const task of TASKS) {
      const sum = byClass[task.class] ??= { untyped: empty(), typed: empty(), typedRepaired: empty(), tasks: 0 }
      sum.tasks++
      for (const variant of ["untyped", "typed", "typedRepaired"] as const) {
        stub.reset()
        stub.setToolCalls("parallel")
        if (variant !== "untyped") stub.setTyped(variant === "typed" ? "valid" : "repair")
        const t = now()
        await viaAeon(stub, task, "AUTO", variant === "untyped" ? undefined : TYPED_SCHEMA)
        sum[variant] = add(sum[variant], billedNow(stub, now() - t, task.calls.length === 0 ? 1 : 2))
      }
    }
    return { latencyScale, byClass }
  } finally {
    await stub.close()
  }
}

const measureOne = async (stub: TrafficStub, task: TrafficTask, framework: Framework): Promise<Figures> => {
  stub.reset()
  stub.setToolCalls(framework === "reactOneAtATime" ? "one-at-a-time" : "parallel")
  const t = now()
  if (framework === "aeonAuto") await viaAeon(stub, task, "AUTO")
  else if (framework === "aeonFull") await viaAeon(stub, task, "FULL")
  else await viaReact(stub, task)
  const wallMs = now() - t
  const ex = stub.exchanges
  return {
    calls: ex.length,
    inputTokens: ex.reduce((n, e) => n + e.inputTokens, 0),
    outputTokens: ex.reduce((n, e) => n + e.outputTokens, 0),
    wallMs,
    cacheableTokens: cacheable(ex),
    floorCalls: task.calls.length === 0 ? 1 : 2
  }
}

const add = (a: Figures, b: Figures): Figures => ({
  calls: a.calls + b.calls,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  wallMs: a.wallMs + b.wallMs,
  cacheableTokens: a.cacheableTokens + b.cacheableTokens,
  floorCalls: a.floorCalls + b.floorCalls
})

export const FRAMEWORKS: ReadonlyArray<Framework> = ["aeonAuto", "aeonFull", "reactParallel", "reactOneAtATime"]

/** Every task through every framework; the figures summed per class. `latencyScale` shortens the modeled latency. */
export const traffic = async (latencyScale = 1) => {
  const stub = await startTrafficStub(TASKS, latencyScale)
  try {
    const byClass = new Map<TaskClass, Record<Framework, Figures>>()
    const perTask: Array<{ id: string; class: TaskClass } & Record<Framework, Figures>> = []
    for (const task of TASKS) {
      const row = {} as Record<Framework, Figures>
      for (const f of FRAMEWORKS) row[f] = await measureOne(stub, task, f)
      perTask.push({ id: task.id, class: task.class, ...row })
      const sum = byClass.get(task.class) ??
        { aeonAuto: empty(), aeonFull: empty(), reactParallel: empty(), reactOneAtATime: empty() }
      for (const f of FRAMEWORKS) sum[f] = add(sum[f], row[f])
      byClass.set(task.class, sum)
    }
    return { latencyScale, byClass: Object.fromEntries(byClass), perTask }
  } finally {
    await stub.close()
  }
}

/**
 * Memory across runs (#44): each task through Aeon AUTO twice for one user on one store (SQLite in memory, memory on
 * as a server has it): the first run, then the same task again — the calls and tokens the stub billed for each.
 */
export const trafficRepeated = async (latencyScale = 1) => {
  const stub = await startTrafficStub(TASKS, latencyScale)
  const model = stubModel(stub)
  const billed = (): Figures => {
    const ex = stub.exchanges
    return {
      ...empty(),
      calls: ex.length,
      inputTokens: ex.reduce((n, e) => n + e.inputTokens, 0),
      outputTokens: ex.reduce((n, e) => n + e.outputTokens, 0)
    }
  }
  try {
    const perTask: Array<{ id: string; class: TaskClass; first: Figures; repeat: Figures }> = []
    for (const task of TASKS) {
      const runtime = ManagedRuntime.make(Layer.mergeAll(
        Aeon.layerWithTools(),
        Layer.succeed(LanguageModel, model),
        Database.layer({ dataDir: "memory" })
      ))
      try {
        const once = async () => {
          stub.reset()
          stub.setToolCalls("parallel")
          const t = now()
          const r = await runtime.runPromise(runTask({ task: task.task, userId: "bench", budget: { maxCostUsd: 100 } }))
          if (r.status !== "CONVERGED") throw new Error(`Aeon did not converge on ${task.id}: ${r.status}`)
          return { figures: { ...billed(), wallMs: now() - t } }
        }
        const first = await once()
        const repeat = await once()
        perTask.push({ id: task.id, class: task.class, first: first.figures, repeat: repeat.figures })
      } finally {
        await runtime.dispose()
      }
    }
    const sum = (key: "first" | "repeat") => perTask.reduce((a, t) => add(a, t[key]), empty())
    return { latencyScale, first: sum("first"), repeat: sum("repeat"), perTask }
  } finally {
    await stub.close()
  }
}
