import { writeFileSync } from "node:fs"
import type { Script, ScriptResponse } from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"

export interface S {
  id: string
  d: string
  tool?: string
  input?: unknown
  deps?: Array<string>
}

export const planOut = (steps: Array<S>, goal = "Answer the task"): ScriptResponse => ({
  output: {
    goal,
    steps: steps.map((s) => ({
      stepId: s.id,
      description: s.d,
      ...(s.tool ? { tool: s.tool, toolInput: s.input } : {}),
      dependencies: s.deps ?? []
    }))
  }
})
export const reasoned = (stepOutput: string, clarityState = "CLEAR"): ScriptResponse => ({
  output: { stepOutput, clarityState, handoffToNext: stepOutput }
})
export const verdict = (converged: boolean, score = converged ? 1 : 0.5): ScriptResponse => ({
  output: {
    converged,
    completenessScore: score,
    coherenceScore: score,
    consistencyAlignment: {},
    reasoning: converged ? "done" : "not yet",
    confidence: 0.8,
    reasonCodes: converged ? ["complete"] : ["incomplete"]
  }
})
export const profile = (reasoningDepth = 2, informationSufficiency = 0.9): ScriptResponse => ({
  output: {
    reasoningDepth,
    informationSufficiency,
    expectedToolUsage: "minimal",
    outputBreadth: "narrow",
    confidenceRequirement: "medium",
    rawInference: "scripted profile"
  }
})
export const noIssues: ScriptResponse = { output: { issues: [] } }
export const noRefinement: ScriptResponse = { output: { actions: [] } }
export const answer = (text: string, used: Array<string> = []): ScriptResponse => ({
  output: { answerText: text, confidence: 0.9, usedStepIds: used }
})

/** A two-step arithmetic run that converges on its first execution pass. */
export const convergingScript = (): Script => ({
  [PromptId.TASKPROFILE_INFERENCE_USER]: [profile()],
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    { id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expression: "6 * 7" } },
    { id: "s2", d: "Explain the product of 6 and 7", deps: ["s1"] }
  ], "Compute 6 * 7 and explain it")],
  [PromptId.VALIDATION_SEMANTIC_USER]: [noIssues],
  [PromptId.REASONING_STEP_USER]: [reasoned("6 * 7 = 42"), reasoned("The product 42 is six sevens")],
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(true)],
  [PromptId.ANSWER_SYNTHESIS_USER]: [answer("42: six sevens", ["s1", "s2"])]
})

/**
 * A model that never converges and refines step `stepId` again each pass: on a deep profile, the fragment's
 * refinements run out and the run needs manual intervention (an interactive run asks for guidance there).
 */
export const refiningForever = (stepId: string): Script => ({
  [PromptId.TASKPROFILE_INFERENCE_USER]: [profile(5)],
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(false)],
  [PromptId.RECURSIVE_REFINEMENT_USER]: [{
    output: {
      actions: [{
        actionType: "MODIFY",
        targetStepId: stepId,
        newStep: { stepId, description: "Explain it again" },
        justification: "again"
      }]
    }
  }]
})

/** A script file (as `--script` and AEON_SCRIPT take) whose plan stores 7 under seed and reads it back. */
export const seedScriptFile = (path: string, more: Record<string, unknown> = {}) => {
  writeFileSync(
    path,
    JSON.stringify({
      fallback: "offline",
      plan_generation_user: [{
        output: {
          goal: "Seed the memory",
          steps: [
            {
              stepId: "s1",
              description: "Store 7 under seed",
              tool: "memory.write",
              toolInput: { key: "seed", value: 7 }
            },
            {
              stepId: "s2",
              description: "Read seed",
              tool: "memory.read",
              toolInput: { key: "seed" },
              dependencies: ["s1"]
            }
          ]
        }
      }],
      ...more
    })
  )
  return path
}
