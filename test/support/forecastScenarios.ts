import { Layer } from "effect"
import { readFileSync } from "node:fs"
import * as Aeon from "../../src/Aeon.js"
import * as LanguageModel from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import { DEFAULT_PRICES } from "../../src/llm/Pricing.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { answer, convergingScript, noIssues, planOut, profile, reasoned, refiningForever, verdict } from "./scripts.js"

/**
 * Runs to measure the forecast on (#35: its worst case in test/planning/ForecastBounds, its error in bench row 17). The
 * scenarios are the suite's own scripts (written for other tests, not for the forecast), two written with this file
 * (a plan grown by refinements, answers sent again), and the shipped eval set's tasks on the offline stand-in; each priced at
 * gpt-4o-mini's rate with tokens counted by Aeon from the prompts it really sent.
 */
const price = DEFAULT_PRICES["gpt-4o-mini"]!
export const priced = (script: Scripted.Script) =>
  Layer.mergeAll(
    Aeon.layerWithTools(),
    Layer.succeed(
      LanguageModel.LanguageModel,
      LanguageModel.make("openai:gpt-4o-mini", price, Scripted.make(script, Offline.service).service.complete)
    )
  )

/** A plan of three steps that the refinement grows by one step each pass, converging on the third assessment. */
const growing = (): Scripted.Script => ({
  [PromptId.TASKPROFILE_INFERENCE_USER]: [profile(4)],
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    { id: "a", d: "Compute 2 + 2 with the calculator", tool: "calculator", input: { expression: "2 + 2" } },
    { id: "b", d: "Compute 3 * 3 with the calculator", tool: "calculator", input: { expression: "3 * 3" } },
    { id: "c", d: "Compare both results", deps: ["a", "b"] }
  ])],
  [PromptId.VALIDATION_SEMANTIC_USER]: [noIssues],
  [PromptId.REASONING_STEP_USER]: [reasoned("done: ".padEnd(600, "x"))],
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false), verdict(false), verdict(true)],
  [PromptId.RECURSIVE_REFINEMENT_USER]: [1, 2, 3].map((n) => ({
    output: {
      actions: [{
        actionType: "ADD",
        newStep: { stepId: `x${n}`, description: `Check the comparison again (${n})` },
        justification: "more checking"
      }]
    }
  })),
  [PromptId.ANSWER_SYNTHESIS_USER]: [answer("4 < 9", ["c"])]
})

/** Answers cut at the output cap and malformed ones: the calls are sent again. */
const repairing = (): Scripted.Script => ({
  ...convergingScript(),
  [PromptId.REASONING_STEP_USER]: [
    { raw: "{ not json", outputTokens: 50 },
    reasoned("6 * 7 = 42"),
    { ...reasoned("The product 42 is six sevens"), truncated: true },
    reasoned("The product 42 is six sevens")
  ]
})

export const forecastScenarios: ReadonlyArray<
  { name: string; script: Scripted.Script; input: Record<string, unknown> }
> = [
  { name: "converging on its first pass", script: convergingScript(), input: { budget: {} } },
  { name: "a plan grown by refinements over passes", script: growing(), input: { budget: { ttl: 4 } } },
  {
    name: "refining one step forever, TTL 3",
    script: { ...convergingScript(), ...refiningForever("s2") },
    input: { budget: { ttl: 3 } }
  },
  { name: "answers repaired and sent again", script: repairing(), input: { budget: {} } },
  {
    name: "refining forever under a call cap",
    script: { ...convergingScript(), ...refiningForever("s2") },
    input: { budget: { ttl: 5, maxLlmCalls: 14 } }
  },
  ...readFileSync("examples/evals/arith.jsonl", "utf8").split("\n").filter((l) => l.trim() !== "").map((line) => {
    const c = JSON.parse(line) as { id: string; task: string; budget?: Record<string, unknown> }
    return { name: `eval case ${c.id} (offline)`, script: {}, input: { task: c.task, budget: c.budget ?? {} } }
  })
]
