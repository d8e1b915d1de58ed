import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph"
import { evaluate } from "../src/tools/Calculator.js"
import { overhead } from "./Overhead.js"
import { median, now } from "./support.js"

/** The same plan → execute → evaluate → refine loop (10 steps, 3 passes, one added step per refinement) in LangGraph.js. */
const langGraphLoop = () => {
  const State = Annotation.Root({
    steps: Annotation<Array<{ id: string; expression: string }>>({ reducer: (_, b) => b, default: () => [] }),
    cursor: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
    outputs: Annotation<Array<string>>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    passes: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
    converged: Annotation<boolean>({ reducer: (_, b) => b, default: () => false })
  })
  // the "model" answers at once, as the scripted model does for Aeon
  const model = (prompt: string) => ({ text: `answer to ${prompt.length}` })
  const graph = new StateGraph(State)
    .addNode(
      "plan",
      () => ({ steps: Array.from({ length: 10 }, (_, i) => ({ id: `s${i + 1}`, expression: `${i} + 1` })), cursor: 0 })
    )
    .addNode("execute", (s) => {
      const step = s.steps[s.cursor]!
      const value = evaluate(step.expression)
      model(`step ${step.id} = ${value}`)
      return { cursor: s.cursor + 1, outputs: [`${step.id}: ${value}`] }
    })
    .addNode("evaluate", (s) => {
      model(`evaluate ${s.outputs.join(",")}`)
      return { passes: s.passes + 1, converged: s.passes + 1 >= 3 }
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
  return graph.compile({ checkpointer: new MemorySaver() })
}

export const peer = async (iterations = 20) => {
  const app = langGraphLoop()
  const once = async (i: number) => {
    const t = now()
    const out = await app.invoke({}, { configurable: { thread_id: `t${i}` }, recursionLimit: 1_000 })
    if (!out.converged || out.outputs.length !== 12) throw new Error("langgraph loop did not finish as expected")
    return now() - t
  }
  for (let i = 0; i < 10; i++) await once(-i - 1) // warm-up, as for Aeon below
  const samples = []
  for (let i = 0; i < iterations; i++) samples.push(await once(i))
  const langgraphPerStep = median(samples) / 12
  const aeon = await overhead({ store: true, iterations: Math.max(5, Math.floor(iterations / 2)), warmup: 10 })
  return {
    langgraphPerStepMs: langgraphPerStep,
    aeonPerStepMs: aeon.perStepMs,
    ratio: aeon.perStepMs / langgraphPerStep
  }
}
