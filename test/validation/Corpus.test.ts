import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import type { IssueType } from "../../src/domain/Evaluation.js"
import { builtinTools } from "../../src/tools/ToolRegistry.js"
import { checkPlan } from "../../src/validation/DeterministicChecks.js"
import { toolInfos } from "../../src/validation/SemanticValidator.js"

interface Entry {
  name: string
  goal: string
  steps: Array<{ stepId: string; description: string; tool?: string; toolInput?: unknown; dependencies: Array<string> }>
  expected: Array<{ type: IssueType; stepId: string }>
}

const corpus: Array<Entry> = JSON.parse(readFileSync(new URL("./corpus.json", import.meta.url), "utf8"))

describe("deterministic validation against the labeled corpus (SC-006)", () => {
  it("detects ≥ 90% of the labeled issues per type with ≤ 10% false positives", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40)
    expect(corpus.filter((c) => c.expected.length === 0).length).toBeGreaterThanOrEqual(10)
    const tools = toolInfos(builtinTools)
    const perType = new Map<IssueType, { labeled: number; detected: number }>()
    let reported = 0
    let falsePositives = 0
    const misses: Array<string> = []
    const extras: Array<string> = []
    for (const entry of corpus) {
      const plan = { goal: entry.goal, steps: entry.steps.map((s, i) => ({ ...s, stepIndex: i + 1 })) }
      const found = checkPlan(plan, tools)
      const matches = (type: IssueType, stepId: string) =>
        found.some((f) => f.type === type && (f.location?.stepId === stepId || f.description.includes(stepId)))
      for (const label of entry.expected) {
        const t = perType.get(label.type) ?? { labeled: 0, detected: 0 }
        t.labeled++
        if (matches(label.type, label.stepId)) t.detected++
        else misses.push(`${entry.name}: ${label.type}@${label.stepId}`)
        perType.set(label.type, t)
      }
      for (const f of found) {
        reported++
        const labeled = entry.expected.some((l) =>
          l.type === f.type && (f.location?.stepId === l.stepId || f.description.includes(l.stepId))
        )
        if (!labeled) {
          falsePositives++
          extras.push(`${entry.name}: ${f.type}@${f.location?.stepId} — ${f.description}`)
        }
      }
    }
    const rows = [...perType].map(([type, t]) =>
      `${type.padEnd(16)} ${t.detected}/${t.labeled} = ${(100 * t.detected / t.labeled).toFixed(0)}%`
    )
    console.log(
      [
        "detection per issue type:",
        ...rows,
        `false positives: ${falsePositives}/${reported} reported`,
        ...misses.map((m) => `missed ${m}`),
        ...extras.map((e) => `extra ${e}`)
      ].join("\n")
    )
    expect(perType.size).toBe(5)
    for (const [type, t] of perType) expect(t.detected / t.labeled, `detection of ${type}`).toBeGreaterThanOrEqual(0.9)
    expect(falsePositives / Math.max(1, reported)).toBeLessThanOrEqual(0.1)
  })
})
