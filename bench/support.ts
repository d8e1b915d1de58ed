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

/** What a provider bills for a request: cl100k over its messages, tools and response_format, plus the reply's framing. */
export const billedTokens = (countTokens: (text: string) => number, body: any) =>
  countTokens(JSON.stringify(body.messages)) + (body.tools ? countTokens(JSON.stringify(body.tools)) : 0) +
  (body.response_format ? countTokens(JSON.stringify(body.response_format)) : 0) + 3

/**
 * A local OpenAI-compatible endpoint answering each request with `answer(body)`, billing it as a provider does
 * (`billed`), the requests kept. Each completion has its own id (LangGraph's messages state keeps one message per id).
 */
export const billingStub = async (
  answer: (body: any) => string,
  billed: (body: any) => number,
  count: (text: string) => number
) => {
  const { createServer } = await import("node:http")
  const requests: Array<any> = []
  let answered = 0
  const server = createServer((req, res) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => {
      const body = JSON.parse(data)
      requests.push(body)
      const content = answer(body)
      const usage = { prompt_tokens: billed(body), completion_tokens: count(content) }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
        id: `c${++answered}`,
        object: "chat.completion",
        created: 0,
        model: body.model,
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }
      }))
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const { port } = server.address() as { port: number }
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())))
  }
}
