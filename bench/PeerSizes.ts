import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph"
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite"
import { evaluate } from "../src/tools/Calculator.js"
import { overheadRunner } from "./Overhead.js"
import { median, now, takeTurns } from "./support.js"

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

/** LangGraph on the loop: `once` runs it and answers its time per executed step. */
const langGraphRunner = (steps: number, passes: number, checkpointer: Checkpointer) => {
  const app = langGraphLoop(steps, passes, checkpointer)
  const executed = executedSteps(steps, passes)
  let thread = 0
  return async () => {
    const t = now()
    const out = await app.invoke({}, { configurable: { thread_id: `t${thread++}` }, recursionLimit: 100_000 })
    if (!out.converged || out.outputs.length !== executed) throw new Error("langgraph loop did not finish as expected")
    return (now() - t) / executed
  }
}

/**
 * Aeon vs LangGraph.js per step at three sizes: Aeon on its embedded SQLite store vs LangGraph with SqliteSaver (both
 * in memory), and both bare (Aeon without a store, LangGraph without a checkpointer). The four take turns run by run
 * (the first of each round rotating), each side's figure the median of its runs: a slow moment of this shared
 * machine falls on all four, not on whichever ran then (run one side after the other, the same build's ratios moved
 * by up to 2× between two bench runs).
 */
export const peerSizes = async (quick = false) => {
  const sizes: Array<[number, number]> = [[10, 3], [100, 3], [1000, 1]]
  const rows = []
  for (const [steps, passes] of sizes) {
    const iterations = steps >= 1000 ? (quick ? 3 : 5) : steps >= 100 ? (quick ? 3 : 9) : quick ? 5 : 20
    // the same warm-up for both sides, about 600 executed steps' worth (at least 3 runs): the steady state of a
    // process that has run a few runs. With 10 runs at 10 × 3, Aeon's JIT was still warming (store 1.46 ms/step after
    // 10 runs, 0.98 after 50; LangGraph's moves too, so both get the same)
    const warmup = Math.max(3, Math.ceil(600 / executedSteps(steps, passes)))
    const aeonStore = overheadRunner({ store: true, steps, passes })
    const aeonBare = overheadRunner({ store: false, steps, passes })
    const perStep = (r: ReturnType<typeof overheadRunner>) => async () => {
      const s = await r.once()
      return s.aeon / s.executed
    }
    const sides = [
      langGraphRunner(steps, passes, "sqlite"),
      langGraphRunner(steps, passes, "none"),
      perStep(aeonStore),
      perStep(aeonBare)
    ]
    const samples = await takeTurns(sides, warmup, iterations)
    await aeonStore.dispose()
    await aeonBare.dispose()
    const [lgSqlite, lgBare, store, bare] = samples.map(median) as [number, number, number, number]
    rows.push({
      size: `${steps} × ${passes}`,
      aeonStoreMs: store,
      langgraphSqliteMs: lgSqlite,
      storeRatio: store / lgSqlite,
      aeonBareMs: bare,
      langgraphBareMs: lgBare,
      bareRatio: bare / lgBare
    })
  }
  return rows
}
