import { overhead } from "./Overhead.js"
import { langGraphLoop } from "./PeerSizes.js"
import { median, now } from "./support.js"

export const peer = async (iterations = 20) => {
  const app = langGraphLoop(10, 3, "memory")
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
