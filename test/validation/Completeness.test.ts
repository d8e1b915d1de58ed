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
