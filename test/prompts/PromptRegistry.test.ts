import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { ALL_PROMPT_IDS, PromptId } from "../../src/prompts/PromptId.js"
import { getDefinition, registry, render } from "../../src/prompts/PromptRegistry.js"
import { placeholders } from "../../src/prompts/Templates.js"

const planView = {
  goal: "g",
  steps: [{ stepId: "s1", stepIndex: 1, description: "Compute x", dependencies: [], status: "pending" }]
}
const sample: Record<string, unknown> = {
  [PromptId.PLAN_GENERATION_USER]: { request: "Compute 1 + 1", tools: [{ name: "calculator", description: "math" }] },
  [PromptId.REASONING_STEP_USER]: {
    request: "r",
    planGoal: "g",
    stepId: "s1",
    stepDescription: "Compute x",
    stepIndex: 1,
    totalSteps: 1,
    passNumber: 1,
    phase: "EXECUTE",
    ttlRemaining: 2,
    correlationId: "c",
    incomingContext: ""
  },
  [PromptId.VALIDATION_SEMANTIC_USER]: {
    request: "r",
    artifactType: "plan",
    plan: planView,
    tools: ["calculator"],
    knownIssues: []
  },
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: {
    request: "r",
    plan: planView,
    validationSummary: "none",
    completenessThreshold: 0.8,
    coherenceThreshold: 0.7
  },
  [PromptId.TASKPROFILE_INFERENCE_USER]: { request: "r" },
  [PromptId.TASKPROFILE_UPDATE_USER]: {
    request: "r",
    currentProfile: {},
    passNumber: 1,
    validationIssueCount: 0,
    convergenceFailures: [],
    refinementsNeeded: 0
  },
  [PromptId.RECURSIVE_PLAN_GENERATION_USER]: { request: "r", goal: "g", tools: [], depthLevel: 1 },
  [PromptId.RECURSIVE_SUBPLAN_GENERATION_USER]: {
    request: "r",
    parentStep: planView.steps[0],
    depthLevel: 1,
    tools: []
  },
  [PromptId.RECURSIVE_REFINEMENT_USER]: {
    request: "r",
    plan: planView,
    issues: [],
    convergenceReasons: [],
    tools: [],
    frozenStepIds: []
  },
  [PromptId.SUPERVISOR_REPAIR_JSON_USER]: { raw: "{", decodeError: "e", expectedSchema: {} },
  [PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER]: {
    tool: "calculator",
    toolDescription: "d",
    inputSchema: {},
    badInput: 1,
    decodeError: "e"
  },
  [PromptId.SUPERVISOR_REPAIR_PLAN_USER]: { request: "r", plan: {}, violation: "v" },
  [PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER]: { stepDescription: "d", missingTool: "web", tools: ["calculator"] },
  [PromptId.ANSWER_SYNTHESIS_USER]: {
    request: "r",
    executionResults: [],
    convergenceStatus: true,
    label: "converged",
    totalPasses: 1,
    ttlRemaining: 1
  },
  [PromptId.PLAN_DIRECT_USER]: { request: "Name the capital of France", earlierRuns: "\n\nNotes: none" },
  [PromptId.ANSWER_TYPED_USER]: {
    request: "r",
    executionResults: [],
    convergenceStatus: true,
    label: "converged",
    repair: "\nAn earlier value broke the output schema at:\n/a: is required"
  },
  [PromptId.EVAL_RUBRIC_USER]: { rubric: "says 42", task: "Compute 6 * 7", status: "CONVERGED", answer: "42" },
  [PromptId.CONVERSATION_SUMMARY_USER]: {
    summary: "The user's budget is 420 euros.",
    messages: `{"user":"Book the cheaper hotel."}\n{"assistant":"Booked."}`,
    maxTokens: 500
  }
}

describe("prompt registry", () => {
  for (const id of ALL_PROMPT_IDS) {
    it(`${id} is registered and renders from a valid input`, () =>
      Effect.gen(function*() {
        const definition = getDefinition(id)
        expect(definition.id).toBe(id)
        const input = id.endsWith("_system") ? {} : sample[id]
        expect(input, `no sample input for ${id}`).toBeDefined()
        const text = yield* render(id, input)
        expect(text.length).toBeGreaterThan(20)
        expect(text).not.toMatch(/\{\{\w+\}\}/)
        if (id.endsWith("_user")) {
          expect(definition.output, `${id} answers JSON and needs an output schema`).toBeDefined()
        }
      }).pipe(Effect.runPromise))
  }

  it("has exactly one definition per PromptId and fixes the typo", () => {
    expect(registry.size).toBe(ALL_PROMPT_IDS.length)
    expect(Object.keys(PromptId)).toContain("CONVERGENCE_ASSESSMENT_USER")
    expect(Object.keys(PromptId)).not.toContain("CONVERGENCE_ASSSESSMENT_USER")
  })

  it("templates reference only fields of their input schema", () => {
    for (const [id, def] of registry) {
      const fields = Object.keys((def.input as any).fields ?? {})
      for (const p of placeholders(def.template)) expect(fields, `${id} uses {{${p}}}`).toContain(p)
    }
  })

  it.effect("a bad input fails with a decode error naming the field", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(render(PromptId.REASONING_STEP_USER, { request: "r" }))
      expect(error._tag).toBe("PromptInputError")
      expect(error.message).toContain("stepDescription")
      const empty = yield* Effect.flip(render(PromptId.PLAN_GENERATION_USER, { request: "  ", tools: [] }))
      expect(empty.message).toContain("request must be non-empty")
    }))

  it("no file outside src/prompts builds prompt text", () => {
    const files: Array<string> = []
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) walk(path)
        else if (path.endsWith(".ts")) files.push(path)
      }
    }
    walk("src")
    const promptLike =
      /(You are (a|the|an) |Answer with JSON|Return \{\\?"|role:\s*"(system|user)",\s*content:\s*[`"'][A-Z])/
    const offenders = files.filter((f) =>
      !f.startsWith(join("src", "prompts")) && promptLike.test(readFileSync(f, "utf8"))
    )
    expect(offenders).toEqual([])
    // the scan can find prompt text: it flags the registry itself
    expect(files.filter((f) => promptLike.test(readFileSync(f, "utf8"))).length).toBeGreaterThan(0)
  })
})

describe("outputs in the shapes models produce (#14.3)", () => {
  it.effect("a plan's tool steps may leave out their description and id: the call describes the step, its place names it", () =>
    Effect.gen(function*() {
      const { decodeAnswer } = yield* Effect.promise(() => import("../../src/llm/LanguageModel.js"))
      const { Contracts } = yield* Effect.promise(() => import("../../src/prompts/PromptRegistry.js"))
      const plan = yield* decodeAnswer(
        Contracts.planGeneration,
        JSON.stringify({
          goal: "Compute two products",
          steps: [
            { tool: "calculator", toolInput: { expression: "19 * 21" } },
            { stepId: "mem", tool: "memory.write", toolInput: { key: "p", value: "{{s1}}" }, dependencies: ["s1"] },
            { description: "Name the capital of France", answer: "Paris" }
          ],
          answer: "19 × 21 = {{s1}}"
        })
      )
      expect(plan.steps.map((s) => [s.stepId, s.description])).toEqual([
        ["s1", "calculator: 19 * 21"],
        ["mem", "memory.write: {\"key\":\"p\",\"value\":\"{{s1}}\"}"],
        ["s3", "Name the capital of France"]
      ])
      expect(plan.steps[2]!.answer).toBe("Paris")
      expect(plan.answer).toBe("19 × 21 = {{s1}}")
    }))

  it.effect("every prompt's answer is read in its common variants; the strict shape is what is asked", () =>
    Effect.gen(function*() {
      const { decodeAnswer } = yield* Effect.promise(() => import("../../src/llm/LanguageModel.js"))
      const { Contracts, outputJsonSchema } = yield* Effect.promise(() => import("../../src/prompts/PromptRegistry.js"))
      const step = yield* decodeAnswer(
        Contracts.reasoningStep,
        "```json\n{\"step_output\": \"2 + 3 = 5\", \"clarity_state\": \"partially clear\"}\n```"
      )
      expect(step).toEqual({ stepOutput: "2 + 3 = 5", clarityState: "PARTIALLY_CLEAR", handoffToNext: "2 + 3 = 5" })
      const verdict = yield* decodeAnswer(
        Contracts.convergence,
        JSON.stringify({
          assessment: {
            converged: "yes",
            completeness: "85%",
            coherence_score: 90,
            consistency_alignment: ["planSteps"],
            explanation: "all parts answered",
            confidence: "0.7",
            reason_codes: "complete"
          }
        })
      )
      expect(verdict).toEqual({
        converged: true,
        completenessScore: 0.85,
        coherenceScore: 0.9,
        consistencyAlignment: [{ name: "planSteps", aligned: true }],
        reasoning: "all parts answered",
        confidence: 0.7,
        reasonCodes: ["complete"]
      })
      const plan = yield* decodeAnswer(
        Contracts.planGeneration,
        JSON.stringify({
          goal: "Double 21",
          steps: [
            { id: "s1", description: "Compute 21 * 2", tool: "calculator", arguments: "{\"expression\": \"21 * 2\"}" },
            { step_id: "s2", task: "Explain it", tool: "none", depends_on: "s1" }
          ]
        })
      )
      expect(plan.steps).toEqual([
        { stepId: "s1", description: "Compute 21 * 2", tool: "calculator", toolInput: { expression: "21 * 2" } },
        { stepId: "s2", description: "Explain it", dependencies: ["s1"] }
      ])
      const refinement = yield* decodeAnswer(
        Contracts.refinement,
        JSON.stringify([{
          action: "modify",
          target: "s2",
          step: { id: "s2", description: "Explain 42" },
          reason: "vague"
        }])
      )
      expect(refinement.actions).toEqual([{
        actionType: "MODIFY",
        targetStepId: "s2",
        newStep: { stepId: "s2", description: "Explain 42" },
        justification: "vague"
      }])
      const profile = yield* decodeAnswer(
        Contracts.profileInference,
        JSON.stringify({
          reasoning_depth: "3",
          information_sufficiency: "70%",
          expected_tool_usage: "High",
          output_breadth: "Medium",
          confidence_requirement: "HIGH",
          reasoning: "arithmetic with an explanation"
        })
      )
      expect(profile).toEqual({
        reasoningDepth: 3,
        informationSufficiency: 0.7,
        expectedToolUsage: "extensive",
        outputBreadth: "moderate",
        confidenceRequirement: "high",
        rawInference: "arithmetic with an explanation"
      })
      const subplan = yield* decodeAnswer(
        Contracts.subplan,
        JSON.stringify({ goal: "Explain", steps: [{ id: "a", description: "Say why", depends_on: [] }] })
      )
      expect(subplan).toEqual({
        subplanGoal: "Explain",
        substeps: [{ stepId: "a", description: "Say why", dependencies: [] }]
      })
      const final = yield* decodeAnswer(
        Contracts.answerSynthesis,
        JSON.stringify({ answer: "42", confidence: "90%", used_steps: "s1" })
      )
      expect(final).toEqual({ answerText: "42", confidence: 0.9, usedStepIds: ["s1"] })
      // still an error when a required part is missing (for the supervisor to repair), naming it
      const missing = yield* Effect.flip(decodeAnswer(Contracts.reasoningStep, "{\"clarity\": \"clear\"}"))
      expect(missing.message).toContain("stepOutput")
      // what the provider is asked for is the strict shape
      expect((outputJsonSchema(Contracts.validation) as any).required).toContain("issues")
      expect(JSON.stringify(outputJsonSchema(Contracts.reasoningStep))).toContain("\"PARTIALLY_CLEAR\"")
    }))
})

describe("prompts keep what every call shares ahead of what changes (#33 item 5: provider prefix caches)", () => {
  it("each user prompt opens with its instruction; the tool list comes before the task", () => {
    for (const id of ALL_PROMPT_IDS.filter((p) => p.endsWith("_user"))) {
      const template = getDefinition(id).template
      const firstVariable = template.search(/\{\{(?!tools\}\})\w+\}\}/)
      expect(template.slice(0, firstVariable), id).toMatch(/^Return /)
      if (template.includes("{{tools}}") && template.includes("{{request}}")) {
        expect(template.indexOf("{{tools}}"), id).toBeLessThan(template.indexOf("{{request}}"))
      }
    }
  })
})
