import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Llm } from "../../src/llm/Llm.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { builtinTools } from "../../src/tools/ToolRegistry.js"
import { checkPlan } from "../../src/validation/DeterministicChecks.js"
import { toolInfos } from "../../src/validation/SemanticValidator.js"
import * as validator from "../../src/validation/SemanticValidator.js"
import { scriptedLlm } from "../support/engine.js"
import { step } from "../support/fixtures.js"

const tools = toolInfos(builtinTools)
const llmOf = scriptedLlm
const plan = {
  goal: "Compute 2 + 3 and explain the sum",
  steps: [
    step("s1", 1, 2, { description: "Compute 2 + 3 with the calculator", tool: "web.search" }),
    step("s2", 2, 2, { description: "Explain the sum of 2 and 3", dependencies: ["s1"] })
  ]
}
const ctx = (llm?: Llm) => ({ request: plan.goal, validationId: "v1", tools, llm })

describe("SemanticValidator", () => {
  it.effect("merges model issues with the deterministic ones, deduplicated by type and step", () =>
    Effect.gen(function*() {
      const report = yield* validator.validatePlan(
        plan,
        ctx(llmOf({
          [PromptId.VALIDATION_SEMANTIC_USER]: [{
            output: {
              issues: [
                { type: "hallucination", severity: "CRITICAL", description: "web.search is not a tool", stepId: "s1" },
                {
                  type: "relevance",
                  severity: "LOW",
                  description: "explanation may be unnecessary",
                  stepId: "s2",
                  proposedRepair: "drop it"
                },
                {
                  type: "consistency",
                  severity: "MEDIUM",
                  description: "points at a step that does not exist",
                  stepId: "s9"
                }
              ]
            }
          }]
        }))
      )
      expect(report.issues.filter((i) => i.type === "hallucination")).toHaveLength(1)
      expect(report.issues.find((i) => i.type === "hallucination")).toMatchObject({
        severity: "CRITICAL",
        source: "deterministic",
        location: { stepId: "s1" }
      })
      expect(report.issues.find((i) => i.type === "relevance")).toMatchObject({
        source: "model",
        proposedRepair: { action: "drop it", target: "s2" }
      })
      expect(report.issues.find((i) => i.type === "consistency")?.location).toBeUndefined()
      expect(report.overallSeverity).toBe("CRITICAL")
      expect(report.issueSummary).toMatchObject({ hallucination: 1, relevance: 1, consistency: 1 })
      expect(new Set(report.issues.map((i) => i.issueId)).size).toBe(report.issues.length)
    }))

  it.effect("model answers in the shapes models produce keep every issue with its step (#14.3)", () =>
    Effect.gen(function*() {
      const clean = {
        goal: "Compute 2 + 3 and explain the sum",
        steps: [
          step("s1", 1, 3, { description: "Compute 2 + 3 with the calculator", tool: "calculator" }),
          step("s2", 2, 3, { description: "Explain the sum of 2 and 3", dependencies: ["s1"] }),
          step("s3", 3, 3, { description: "Report the sum of 2 and 3", dependencies: ["s2"] })
        ]
      }
      // one answer as a model wrote it: nested locations, step_id, a step number, types and severities in other words
      const raw = JSON.stringify({
        issues: [
          {
            issue_type: "Do/Say Mismatch",
            severity: "high",
            location: { stepId: "s1", field: "tool" },
            message: "the step says compute but the input is empty",
            proposedRepair: { action: "give the calculator the expression 2 + 3", target: "s1" }
          },
          {
            type: "VAGUE",
            level: "minor",
            location: { step_id: "s2" },
            description: "explain how?",
            suggestion: "say what to explain"
          },
          { type: "relevance", severity: "Moderate", step: 3, description: "a report nobody asked for" },
          { category: "inconsistency", severity: "CRITICAL", steps: ["s2", "s3"], description: "order contradicts" },
          { type: "a kind no one defined", severity: "LOW", description: "???" }
        ]
      })
      const report = yield* validator.validatePlan(
        clean,
        ctx(llmOf({ [PromptId.VALIDATION_SEMANTIC_USER]: [{ raw }] }))
      )
      const fromModel = report.issues.filter((i) => i.source === "model")
      expect(fromModel.map((i) => [i.type, i.severity, i.location?.stepId])).toEqual([
        ["do_say_mismatch", "HIGH", "s1"],
        ["specificity", "LOW", "s2"],
        ["relevance", "MEDIUM", "s3"],
        ["consistency", "CRITICAL", "s2"],
        ["consistency", "CRITICAL", "s3"]
      ])
      expect(fromModel[0]!.proposedRepair).toEqual({ action: "give the calculator the expression 2 + 3", target: "s1" })
      expect(fromModel[1]!.proposedRepair?.action).toBe("say what to explain")
      expect(report.advisories.join("\n")).toContain("a kind no one defined")
    }))

  it.effect("a model failure leaves the deterministic report and an advisory, never 'no issues' (FR-081)", () =>
    Effect.gen(function*() {
      const report = yield* validator.validatePlan(
        plan,
        ctx(llmOf({ [PromptId.VALIDATION_SEMANTIC_USER]: [{ error: { status: 503 } }] }))
      )
      expect(report.issues.map((i) => i.type)).toContain("hallucination")
      expect(report.advisories[0]).toContain("model validation unavailable")
    }))

  it.effect("cross-phase: the answer must rest on the executed steps, memory must hold what was written (FR-041)", () =>
    Effect.gen(function*() {
      const executed = {
        goal: "Remember 5 and report it",
        steps: [
          step("s1", 1, 2, {
            description: "Store the number 5 in memory",
            tool: "memory.write",
            toolInput: { key: "n", value: 5 },
            status: "complete",
            stepOutput: "stored 5"
          }),
          step("s2", 2, 2, {
            description: "Report the stored number",
            status: "complete",
            stepOutput: "",
            dependencies: ["s1"]
          })
        ]
      }
      const report = yield* validator.validateCrossPhase({
        plan: executed,
        finalAnswer: "The number is 7",
        memory: new Map()
      }, { ...ctx(), request: executed.goal })
      const d = report.issues.map((i) => i.description).join("\n")
      expect(d).toContain("s2 is complete but produced no output")
      expect(d).toContain("numbers no step produced: 7")
      expect(d).toContain("wrote \"n\" to memory but memory does not hold it")
      expect(report.artifactType).toBe("cross_phase")
      const clean = yield* validator.validateCrossPhase({
        plan: { ...executed, steps: [executed.steps[0]!] },
        finalAnswer: "stored 5",
        memory: new Map([["n", 5]])
      }, { ...ctx(), request: executed.goal })
      expect(clean.issues).toEqual([])
    }))
})

describe("deterministic checks, validated again on every pass", () => {
  it("a step's findings follow what it says and calls, and the run's tools, never a remembered earlier check", () => {
    const found = (p: typeof plan, t = tools) => checkPlan(p, t).map((i) => `${i.type} ${i.location?.stepId}`)
    const withStep = (description: string, tool: string) => ({
      ...plan,
      steps: [step("s1", 1, 2, { description, tool, toolInput: { expression: "2 + 3" } }), plan.steps[1]!]
    })
    // checked twice with the same tools: the same findings
    expect(found(plan)).toEqual(found(plan))
    expect(found(plan)).toContain("hallucination s1")
    // the same step id, now calling a tool that exists with a matching input: that finding is gone
    expect(found(withStep("Compute 2 + 3 with the calculator", "calculator"))).not.toContain("hallucination s1")
    // the same step, its description changed to a placeholder: found now
    expect(found(withStep("Compute TODO with the calculator", "calculator"))).toContain("specificity s1")
    // the same step, on a run whose tools lack the calculator: a hallucination there
    const without = tools.filter((t) => t.name !== "calculator")
    expect(found(withStep("Compute 2 + 3 with the calculator", "calculator"), without)).toContain("hallucination s1")
  })
})

describe("do/say: a step asking for what the tool's name is about is its work, whatever the verb (#58)", () => {
  const weather = { name: "geo.weather_forecast", description: "Provides a weather forecast for a city." }
  const mail = { name: "mail.send", description: "Sends an email message to a recipient." }
  const catalog = [...tools, weather, mail]
  const planOf = (description: string, tool: string) => ({
    goal: "g",
    steps: [step("s1", 1, 1, { description, tool, toolInput: { city: "Lisbon" } })]
  })
  const doSay = (description: string, tool: string) =>
    checkPlan(planOf(description, tool), catalog).filter((i) => i.type === "do_say_mismatch")

  it("'Get the weather forecast for Lisbon' with the forecasting tool is no mismatch", () => {
    expect(doSay("Get the weather forecast for Lisbon", "geo.weather_forecast")).toEqual([])
    expect(doSay("Fetch the forecast for Lisbon", "geo.weather_forecast")).toEqual([])
  })

  it("a step asking another tool's work is still one", () => {
    expect(doSay("Send the report to Ada by email", "geo.weather_forecast")).toHaveLength(1)
    expect(doSay("Compute 6 * 7", "mail.send")).toHaveLength(1)
  })
})
