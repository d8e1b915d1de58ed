import { Effect, Layer } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Aeon, LanguageModel, Offline, PromptId, runTask, Scripted } from "../../src/index.js"

const readme = readFileSync("README.md", "utf8")

describe("README", () => {
  it("opens with the two set-up commands", () => {
    const top = readme.split("\n").slice(0, 6).join("\n")
    expect(top).toContain("npm install && npm start")
    expect(top).toContain("npm install && npm test")
  })

  it("lists every AEON_ setting the code reads", () => {
    const names = new Set<string>()
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f)
        if (statSync(p).isDirectory()) walk(p)
        else if (p.endsWith(".ts")) {
          for (const m of readFileSync(p, "utf8").matchAll(/"(AEON_[A-Z_]+)"/g)) names.add(m[1]!)
        }
      }
    }
    walk("src")
    expect(names.size).toBeGreaterThan(15)
    for (const n of names) expect(readme, n).toContain(`\`${n}\``)
  })

  it("the library example runs as written", async () => {
    const model = Scripted.make({
      [PromptId.PLAN_GENERATION_USER]: [{
        output: {
          goal: "Add",
          steps: [
            {
              stepId: "s1",
              description: "Compute 2 + 2 with the calculator",
              tool: "calculator",
              toolInput: { expression: "2 + 2" }
            }
          ]
        }
      }],
      [PromptId.REASONING_STEP_USER]: [{
        output: { stepOutput: "2 + 2 = 4", clarityState: "CLEAR", handoffToNext: "4" }
      }]
    }, Offline.service)
    const engine = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel.LanguageModel, model.service))
    const result = await Effect.runPromise(
      runTask({ task: "What is 2 + 2?", mode: "FULL", budget: { maxLlmCalls: 20, deadlineMs: 30_000 } }).pipe(
        Effect.provide(engine)
      )
    )
    expect(result.status).toBe("CONVERGED")
    expect(result.finalAnswer?.answerText).toContain("4")
    expect(readme).toContain(
      "runTask({ task: \"What is 2 + 2?\", mode: \"FULL\", budget: { maxLlmCalls: 20, deadlineMs: 30_000 } })"
    )
  })
})
