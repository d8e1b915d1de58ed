import { Effect, Layer } from "effect"
import * as Aeon from "../src/Aeon.js"
import * as Agents from "../src/agents/Agents.js"
import { LanguageModel } from "../src/llm/LanguageModel.js"
import * as Offline from "../src/llm/Offline.js"
import * as Scripted from "../src/llm/Scripted.js"
import { PromptId } from "../src/prompts/PromptId.js"
import { prepare } from "../src/run/Run.js"

/**
 * Row 62 (#72): what delegating costs. A parent agent whose plan hands its one step to the agent `math` (a child
 * run), beside the same task run by `math` directly; both on the scripted model (the plans scripted, everything else
 * the offline stand-in's; each plan writes its answer as the planner does, a template of its steps' results), counting
 * the model calls each made. The target: the child's calls and at most one beside (the parent's plan).
 */
const MATH_PLAN = {
  output: {
    goal: "Compute 6 * 7",
    answer: "6 * 7 = {{s1}}",
    steps: [{
      stepId: "s1",
      description: "Compute 6 * 7 with the calculator",
      tool: "calculator",
      toolInput: { expression: "6 * 7" },
      dependencies: []
    }]
  }
}
const DELEGATING_PLAN = {
  output: {
    goal: "Have the math desk compute 6 * 7",
    answer: "{{s1}}",
    steps: [{
      stepId: "s1",
      description: "Ask the math agent",
      tool: "agent.math",
      toolInput: { task: "Compute 6 * 7" },
      dependencies: []
    }]
  }
}
const AGENTS = {
  math: { tools: ["calculator"], mode: "SIMPLE", memory: false },
  desk: { tools: ["agent:math"], mode: "SIMPLE", memory: false }
}

const callsOf = (plans: ReadonlyArray<object>, input: object) => {
  const model = Scripted.make({ [PromptId.PLAN_GENERATION_USER]: plans as Array<any> }, Offline.service)
  const layer = Layer.provideMerge(
    Agents.layer({ agents: AGENTS }),
    Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, model.service))
  )
  return Effect.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare(input)
      const result = yield* p.execute
      return { calls: model.calls.length, status: result.status, prompts: model.calls.map((c) => c.promptId) }
    }).pipe(Effect.provide(layer))
  )
}

export const delegation = async () => {
  const direct = await callsOf([MATH_PLAN], { agent: "math", task: "Compute 6 * 7" })
  const delegated = await callsOf([DELEGATING_PLAN, MATH_PLAN], { agent: "desk", task: "What is 6 * 7?" })
  return { direct, delegated, beside: delegated.calls - direct.calls }
}
