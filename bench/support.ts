import { Effect, Layer } from "effect"
import * as Aeon from "../src/Aeon.js"
import { LanguageModel } from "../src/llm/LanguageModel.js"
import * as Scripted from "../src/llm/Scripted.js"
import { PromptId } from "../src/prompts/PromptId.js"
import * as Database from "../src/store/Database.js"

export const now = () => performance.now()
export const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
export const percentile = (xs: ReadonlyArray<number>, p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!

/** A model that answers at once (or after `delayMs`) and reports its usage: a plan of `steps` steps, `passes` passes to converge, one added step per refinement. */
export const loopScript = (steps: number, passes: number, delayMs = 0): Scripted.Script => {
  let assessed = 0
  let added = 0
  // usage as a provider reports it (OpenAI-compatible APIs do): Aeon counts tokens itself only for models that do not
  const d = { ...(delayMs > 0 ? { delayMs } : {}), inputTokens: 400, outputTokens: 60 }
  return {
    [PromptId.TASKPROFILE_INFERENCE_USER]: [{
      ...d,
      output: {
        reasoningDepth: Math.min(5, passes),
        informationSufficiency: 0.9,
        expectedToolUsage: "moderate",
        outputBreadth: "narrow",
        confidenceRequirement: "medium",
        rawInference: "bench"
      }
    }],
    [PromptId.TASKPROFILE_UPDATE_USER]: [{
      ...d,
      output: {
        reasoningDepth: Math.min(5, passes),
        informationSufficiency: 0.9,
        expectedToolUsage: "moderate",
        outputBreadth: "narrow",
        confidenceRequirement: "medium",
        rawInference: "bench",
        adjustmentReason: "unchanged"
      }
    }],
    [PromptId.PLAN_GENERATION_USER]: [{
      ...d,
      output: {
        goal: "Compute the running sums",
        steps: Array.from({ length: steps }, (_, i) => ({
          stepId: `s${i + 1}`,
          description: `Compute ${i} + 1 with the calculator`,
          tool: "calculator",
          toolInput: { expression: `${i} + 1` },
          dependencies: i === 0 ? [] : [`s${i}`]
        }))
      }
    }],
    [PromptId.VALIDATION_SEMANTIC_USER]: [{ ...d, output: { issues: [] } }],
    [PromptId.REASONING_STEP_USER]: [
      (r) => ({
        ...d,
        output: {
          stepOutput: `sum ${(r.input as { stepId: string }).stepId} computed`,
          clarityState: "CLEAR",
          handoffToNext: "ok"
        }
      })
    ],
    [PromptId.CONVERGENCE_ASSESSMENT_USER]: [() => {
      assessed++
      return {
        ...d,
        output: {
          converged: assessed % passes === 0,
          completenessScore: 1,
          coherenceScore: 1,
          consistencyAlignment: {},
          reasoning: "bench",
          confidence: 1,
          reasonCodes: assessed % passes === 0 ? ["complete"] : ["incomplete"]
        }
      }
    }],
    [PromptId.RECURSIVE_REFINEMENT_USER]: [
      () => ({
        ...d,
        output: {
          actions: [{
            actionType: "ADD",
            newStep: {
              stepId: `c${++added}`,
              description: `Compute ${added} + 2 with the calculator`,
              tool: "calculator",
              toolInput: { expression: `${added} + 2` }
            },
            justification: "check"
          }]
        }
      })
    ],
    [PromptId.ANSWER_SYNTHESIS_USER]: [{
      ...d,
      output: { answerText: "sums computed", confidence: 1, usedStepIds: ["s1"] }
    }]
  }
}

export const engine = (script: () => Scripted.Script) =>
  Layer.mergeAll(
    Aeon.layerWithTools(),
    Layer.effect(LanguageModel, Effect.sync(() => Scripted.make(script(), undefined, { record: false }).service))
  )

export const memoryStore = Database.layer({ dataDir: "memory" })

/**
 * Each side once a round, the first rotating, after `warmup` rounds: a slow moment of this shared machine falls on all
 * sides, not on whichever ran then. Each side's figures, in the order of `sides`.
 */
export const takeTurns = async (
  sides: ReadonlyArray<() => Promise<number>>,
  warmup: number,
  rounds: number
): Promise<Array<Array<number>>> => {
  for (let i = 0; i < warmup; i++) for (const side of sides) await side()
  const samples = sides.map(() => [] as Array<number>)
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < sides.length; k++) {
      const j = (i + k) % sides.length
      samples[j]!.push(await sides[j]!())
    }
  }
  return samples
}

export const fmt = (n: number, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : String(n))
