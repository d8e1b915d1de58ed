import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph"
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite"
import { evaluate } from "../src/tools/Calculator.js"
import { overhead } from "./Overhead.js"
import { median, now } from "./support.js"

type Checkpointer = "none" | "memory" | "sqlite"

/**
 * LangGraph.js on the loop shape of Aeon's overhead bench: plan `steps` steps, execute them one by one (calculator),
 * evaluate, refine by one added step, for `passes` passes; an instant "model".
 */
export const langGraphLoop = (steps: number, passes: number, checkpointer: Checkpointer) => {
  const State = Annotation.Root({
    steps: Annotation<Array<{ id: string; expression: string }>>({ reducer: (_, b) => b, default: () => [] }),
    cursor: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
    outputs: Annotation<Array<string>>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    passes: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
    converged: Annotation<boolean>({ reducer: (_, b) => b, default: () => false })
  })
  const model = (prompt: string) => ({ text: `answer to ${prompt.length}` })
  const graph = new StateGraph(State)
    .addNode(
      "plan",
      () => ({
        steps: Array.from({ length: steps }, (_, i) => ({ id: `s${i + 1}`, expression: `${i} + 1` })),
        cursor: 0
      })
    )
    .addNode("execute", (s) => {
      const step = s.steps[s.cursor]!
      const value = evaluate(step.expression)
      model(`step ${step.id} = ${value}`)
      return { cursor: s.cursor + 1, outputs: [`${step.id}: ${value}`] }
    })
    .addNode("evaluate", (s) => {
      model(`evaluate ${s.outputs.length}`)
      return { passes: s.passes + 1, converged: s.passes + 1 >= passes }
    })
    .addNode("refine", (s) => {
      model("refine")
      return { steps: [...s.steps, { id: `c${s.passes}`, expression: `${s.passes} + 2` }] }
    })
    .addEdge(START, "plan")
    .addEdge("plan", "execute")
    .addConditionalEdges("execute", (s) => (s.cursor < s.steps.length ? "execute" : "evaluate"))
    .addConditionalEdges("evaluate", (s) => (s.converged ? END : "refine"))
    .addEdge("refine", "execute")
  return graph.compile(
    checkpointer === "none" ?
      {}
      : { checkpointer: checkpointer === "memory" ? new MemorySaver() : SqliteSaver.fromConnString(":memory:") }
  )
}

/** Steps a run of the loop executes: the plan's, then one added per refinement (a refinement between passes). */
const executedSteps = (steps: number, passes: number) => steps + passes - 1

/** LangGraph's time per executed step, median of `iterations` runs after a warm-up. */
const langGraph = async (
  steps: number,
  passes: number,
  checkpointer: Checkpointer,
  iterations: number,
  warmup: number
) => {
  const app = langGraphLoop(steps, passes, checkpointer)
  const executed = executedSteps(steps, passes)
  const once = async (i: number) => {
    const t = now()
    const out = await app.invoke({}, { configurable: { thread_id: `t${i}` }, recursionLimit: 100_000 })
    if (!out.converged || out.outputs.length !== executed) throw new Error("langgraph loop did not finish as expected")
    return now() - t
  }
  for (let i = 0; i < warmup; i++) await once(-i - 1)
  const samples = []
  for (let i = 0; i < iterations; i++) samples.push(await once(i))
  return median(samples) / executed
}

/**
 * Aeon vs LangGraph.js per step at three sizes: Aeon on its embedded SQLite store vs LangGraph with SqliteSaver (both
 * in memory), and both bare (Aeon without a store, LangGraph without a checkpointer).
 */
export const peerSizes = async (quick = false) => {
  const sizes: Array<[number, number]> = [[10, 3], [100, 3], [1000, 1]]
  const rows = []
  for (const [steps, passes] of sizes) {
    const iterations = steps >= 1000 ? 3 : steps >= 100 ? (quick ? 3 : 5) : quick ? 5 : 20
    // the same warm-up for both sides, about 600 executed steps' worth (at least 3 runs): the steady state of a
    // process that has run a few runs. With 10 runs at 10 × 3, Aeon's JIT was still warming (store 1.46 ms/step after
    // 10 runs, 0.98 after 50; LangGraph's moves too, so both get the same)
    const warmup = Math.max(3, Math.ceil(600 / executedSteps(steps, passes)))
    const lgSqlite = await langGraph(steps, passes, "sqlite", iterations, warmup)
    const lgBare = await langGraph(steps, passes, "none", iterations, warmup)
    const aeonStore = (await overhead({ store: true, steps, passes, iterations, warmup })).perStepMs
    const aeonBare = (await overhead({ store: false, steps, passes, iterations, warmup })).perStepMs
    rows.push({
      size: `${steps} × ${passes}`,
      aeonStoreMs: aeonStore,
      langgraphSqliteMs: lgSqlite,
      storeRatio: aeonStore / lgSqlite,
      aeonBareMs: aeonBare,
      langgraphBareMs: lgBare,
      bareRatio: aeonBare / lgBare
    })
  }
  return rows
}
