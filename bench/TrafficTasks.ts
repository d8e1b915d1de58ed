/**
 * The traffic bench's tasks (issue 41 item 7), written once for every framework: the tool calls a competent model
 * makes for each and the answer it gives. Aeon's plan is those calls (`planInput`: the same input with `{{sN}}` where
 * a call uses an earlier result); the ReAct agent's model makes the same calls with the values it has read (`input`).
 */

export type TaskClass = "single tool" | "chain" | "fan-out" | "no tool"

export interface ToolCall {
  readonly tool: "calculator" | "memory.write" | "memory.read" | "clock.now"
  /** What a model that has read the earlier results writes. */
  readonly input: Record<string, unknown>
  /** Aeon's plan: the same call, an earlier result as a reference. */
  readonly planInput?: Record<string, unknown>
  /** The call whose result it needs (its index), for chains. */
  readonly after?: number
}

export interface TrafficTask {
  readonly id: string
  readonly class: TaskClass
  readonly task: string
  readonly calls: ReadonlyArray<ToolCall>
  readonly answer: string
  /** Aeon's plan's answer: the same answer, each result as its reference (what the planner prompt asks for). */
  readonly planAnswer?: string
}

const calc = (expression: string, after?: number, planExpression?: string): ToolCall => ({
  tool: "calculator",
  input: { expression },
  ...(planExpression ? { planInput: { expression: planExpression } } : {}),
  ...(after !== undefined ? { after } : {})
})

export const TASKS: ReadonlyArray<TrafficTask> = [
  // one tool call
  {
    id: "single-1",
    class: "single tool",
    task: "Compute 17 + 25.",
    calls: [calc("17 + 25")],
    answer: "17 + 25 = 42.",
    planAnswer: "17 + 25 = {{s1}}."
  },
  {
    id: "single-2",
    class: "single tool",
    task: "What is 1234 * 5678?",
    calls: [calc("1234 * 5678")],
    answer: "1234 × 5678 = 7,006,652.",
    planAnswer: "1234 × 5678 = {{s1}}."
  },
  {
    id: "single-3",
    class: "single tool",
    task: "Store the value 42 in memory under the key answer.",
    calls: [{ tool: "memory.write", input: { key: "answer", value: 42 } }],
    answer: "Stored 42 under the key answer.",
    planAnswer: "Stored 42 under the key {{s1.key}}."
  },
  // chains of dependent calls
  {
    id: "chain-3",
    class: "chain",
    task: "Add 17 and 25, multiply the result by 3, then subtract 6 from that.",
    calls: [calc("17 + 25"), calc("42 * 3", 0, "{{s1}} * 3"), calc("126 - 6", 1, "{{s2}} - 6")],
    answer: "(17 + 25) × 3 − 6 = 120.",
    planAnswer: "(17 + 25) × 3 − 6 = {{s3}}."
  },
  {
    id: "chain-4",
    class: "chain",
    task: "Compute 12 squared, add 56, halve the result, and store it in memory under total.",
    calls: [
      calc("12 ^ 2"),
      calc("144 + 56", 0, "{{s1}} + 56"),
      calc("200 / 2", 1, "{{s2}} / 2"),
      {
        tool: "memory.write",
        input: { key: "total", value: 100 },
        planInput: { key: "total", value: "{{s3}}" },
        after: 2
      }
    ],
    answer: "12² + 56 = 200, halved 100, stored under total.",
    planAnswer: "12² + 56 = {{s2}}, halved {{s3}}, stored under {{s4.key}}."
  },
  {
    id: "chain-5",
    class: "chain",
    task:
      "Start from 1000, take 15 percent of it, add 30, multiply by 4, subtract 200, and store the result under final.",
    calls: [
      calc("1000 * 0.15"),
      calc("150 + 30", 0, "{{s1}} + 30"),
      calc("180 * 4", 1, "{{s2}} * 4"),
      calc("720 - 200", 2, "{{s3}} - 200"),
      {
        tool: "memory.write",
        input: { key: "final", value: 520 },
        planInput: { key: "final", value: "{{s4}}" },
        after: 3
      }
    ],
    answer: "15 % of 1000 is 150; +30 = 180; ×4 = 720; −200 = 520, stored under final.",
    planAnswer: "15 % of 1000 is {{s1}}; +30 = {{s2}}; ×4 = {{s3}}; −200 = {{s4}}, stored under {{s5.key}}."
  },
  // independent calls
  {
    id: "fanout-3",
    class: "fan-out",
    task: "Compute 19 * 21, 33 * 37 and 45 * 55.",
    calls: [calc("19 * 21"), calc("33 * 37"), calc("45 * 55")],
    answer: "19 × 21 = 399, 33 × 37 = 1,221, 45 × 55 = 2,475.",
    planAnswer: "19 × 21 = {{s1}}, 33 × 37 = {{s2}}, 45 × 55 = {{s3}}."
  },
  {
    id: "fanout-4",
    class: "fan-out",
    task: "Store red under color, 7 under size, yes under active and Ada under owner in memory.",
    calls: [
      { tool: "memory.write", input: { key: "color", value: "red" } },
      { tool: "memory.write", input: { key: "size", value: 7 } },
      { tool: "memory.write", input: { key: "active", value: "yes" } },
      { tool: "memory.write", input: { key: "owner", value: "Ada" } }
    ],
    answer: "Stored color = red, size = 7, active = yes, owner = Ada.",
    planAnswer: "Stored {{s1.key}} = red, {{s2.key}} = 7, {{s3.key}} = yes, {{s4.key}} = Ada."
  },
  {
    id: "fanout-5",
    class: "fan-out",
    task: "Compute 2 ^ 10, 3 ^ 7, 5 ^ 5, 7 ^ 4 and 11 ^ 3.",
    calls: [calc("2 ^ 10"), calc("3 ^ 7"), calc("5 ^ 5"), calc("7 ^ 4"), calc("11 ^ 3")],
    answer: "2¹⁰ = 1,024; 3⁷ = 2,187; 5⁵ = 3,125; 7⁴ = 2,401; 11³ = 1,331.",
    planAnswer: "2¹⁰ = {{s1}}; 3⁷ = {{s2}}; 5⁵ = {{s3}}; 7⁴ = {{s4}}; 11³ = {{s5}}."
  },
  // no tool: a fact, an explanation
  {
    id: "none-1",
    class: "no tool",
    task: "What is the capital of France?",
    calls: [],
    answer: "Paris is the capital of France."
  },
  {
    id: "none-2",
    class: "no tool",
    task: "Explain in two sentences why the sky is blue.",
    calls: [],
    answer:
      "Sunlight is scattered by the molecules of the air, and shorter (blue) wavelengths scatter far more than longer ones. " +
      "So light reaching us from every part of the sky is mostly blue."
  },
  {
    id: "none-3",
    class: "no tool",
    task: "Name the three primary colors of light.",
    calls: [],
    answer: "Red, green and blue."
  }
]

/** The calls that can be made at once after `done` results: those whose earlier result is in. */
export const readyCalls = (task: TrafficTask, done: number): Array<number> => {
  const ready: Array<number> = []
  for (let i = done; i < task.calls.length; i++) {
    const after = task.calls[i]!.after
    if (after === undefined || after < done) ready.push(i)
    else break
  }
  return ready
}
