import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { completeness } from "../../src/validation/Completeness.js"

const step = (stepId: string, description: string, tool?: string, toolInput?: unknown) => ({
  stepId,
  stepIndex: Number(stepId.slice(1)) - 1,
  description,
  dependencies: [],
  ...(tool ? { tool, toolInput } : {})
})

describe("completeness: a number of the task that no step uses (#42 item 5)", () => {
  it("a plan that drops part of the task is told so, on its last step", () => {
    const found = completeness("What is 6 * 7 plus 3?", {
      goal: "What is 6 * 7 plus 3?",
      steps: [step("s1", "Compute 6 * 7 with the calculator", "calculator", { expression: "6 * 7" })]
    })
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ type: "completeness", severity: "MEDIUM", location: { stepId: "s1" } })
    expect(found[0]!.description).toContain("the task states 3, which no step uses")
  })

  it("numbers used in a description or a tool's input count; numbers inside names do not", () => {
    expect(completeness("Add 17 and 25, then multiply the result by 3", {
      goal: "g",
      steps: [
        step("s1", "Add 17 and 25 with the calculator", "calculator", { expression: "17 + 25" }),
        step("s2", "Multiply the result by 3", "calculator", { expression: "{{s1}} * 3" })
      ]
    })).toEqual([])
    expect(completeness("Store 42 in memory under answer", {
      goal: "g",
      steps: [step("s1", "Store the answer", "memory.write", { key: "answer", value: 42 })]
    })).toEqual([])
    expect(completeness("Read file notes-v2 with the o200k tokenizer", {
      goal: "g",
      steps: [step("s1", "Read the notes")]
    })).toEqual([])
    expect(completeness("Take 15 percent of 1000", {
      goal: "g",
      steps: [step("s1", "Compute 1000 * 0.15 with the calculator", "calculator", { expression: "1000 * 0.15" })]
    })).toEqual([])
    expect(completeness("Compute 2.5 * 4", {
      goal: "g",
      steps: [step("s1", "Compute it", "calculator", { expression: "2.50 * 4" })]
    })).toEqual([])
  })
})

/**
 * Plans written apart from the rule (#54 item 6), before it changed: clean plans that use a number of the task in
 * another form — a rate as a factor or a monthly rate, a duration in other units, a magnitude word as digits, a
 * thousands separator — are not flagged; plans that leave out part of the task are, on exactly the numbers left out.
 */
describe("completeness on plans that use the task's numbers in other forms (#54.6)", () => {
  const corpus: Array<{
    name: string
    task: string
    steps: Array<{ description: string; tool?: string; toolInput?: unknown }>
    flags: Array<string>
  }> = JSON.parse(readFileSync(new URL("./completeness.json", import.meta.url), "utf8"))
  for (const entry of corpus) {
    it(`${entry.flags.length === 0 ? "clean" : `flags ${entry.flags.join(", ")}`}: ${entry.name}`, () => {
      const found = completeness(entry.task, {
        goal: entry.task,
        steps: entry.steps.map((s, i) => ({ ...step(`s${i + 1}`, s.description, s.tool, s.toolInput) }))
      })
      expect(found.map((f) => f.description.match(/the task states (\S+),/)?.[1])).toEqual(entry.flags)
    })
  }
})
