import { Effect, Schema } from "effect"
import { Layer } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { ExecutionHistory } from "../../src/domain/Execution.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import * as LanguageModel from "../../src/llm/LanguageModel.js"
import type { ScriptResponse } from "../../src/llm/Scripted.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"

const RUNS = Number(process.env.AEON_PROPERTY_RUNS ?? 1000) // `npm run test:long`: 10,000

const stepIds = ["s1", "s2", "s3", "s4", "s5", "x1"]
const id = fc.constantFrom(...stepIds)
const descriptions = fc.constantFrom(
  "Compute 2 + 3 with the calculator",
  "Explain the sum",
  "Store the sum in memory",
  "Do stuff",
  "Read the sum from memory",
  "Book a flight"
)
const toolCall = fc.oneof(
  fc.constant({}),
  fc.constant({ tool: "calculator", toolInput: { expression: "2 + 3" } }),
  fc.constant({ tool: "calculator", toolInput: { expression: "1 / 0" } }),
  fc.constant({ tool: "calculator", toolInput: { expr: "2 + 3" } }),
  fc.constant({ tool: "memory.write", toolInput: { key: "sum", value: 5 } }),
  fc.constant({ tool: "memory.read", toolInput: { key: "sum" } }),
  fc.constant({ tool: "web.search", toolInput: { q: "x" } })
)
const plannedStep = fc.record({ stepId: id, description: descriptions, dependencies: fc.array(id, { maxLength: 2 }) })
  .chain((s) => toolCall.map((t) => ({ ...s, ...t })))
const plan = fc.array(plannedStep, { minLength: 0, maxLength: 5 }).map((steps) => ({
  goal: "Compute 2 + 3 and explain the sum",
  steps
}))

const malformed: fc.Arbitrary<ScriptResponse> = fc.oneof(
  fc.constant({ raw: "{not json" }),
  fc.constant({ raw: "" }),
  fc.constant({ output: { unexpected: true } }),
  fc.constant({ error: { status: 500 } }),
  fc.constant({ error: { status: 429 } })
)
const out = <A>(a: fc.Arbitrary<A>, bad = 0.2): fc.Arbitrary<ScriptResponse> =>
  fc.oneof({ arbitrary: a.map((output) => ({ output })), weight: Math.round((1 - bad) * 10) }, {
    arbitrary: malformed,
    weight: Math.round(bad * 10)
  })
const list = <A>(a: fc.Arbitrary<A>) => fc.array(out(a), { minLength: 1, maxLength: 6 })

const reasoning = fc.record({
  stepOutput: fc.constantFrom("2 + 3 = 5", "the sum is 5", ""),
  clarityState: fc.constantFrom("CLEAR", "CLEAR", "PARTIALLY_CLEAR", "BLOCKED"),
  handoffToNext: fc.constant("5")
})
const issue = fc.record({
  type: fc.constantFrom("specificity", "relevance", "consistency", "hallucination", "do_say_mismatch"),
  severity: fc.constantFrom("LOW", "MEDIUM", "HIGH", "CRITICAL"),
  description: fc.constant("issue"),
  stepId: fc.option(id, { nil: undefined })
})
const verdict = fc.record({
  converged: fc.boolean(),
  completenessScore: fc.double({ min: 0, max: 1, noNaN: true }),
  coherenceScore: fc.double({ min: 0, max: 1, noNaN: true }),
  consistencyAlignment: fc.constant({}),
  reasoning: fc.constant("r"),
  confidence: fc.constant(0.5)
})
const action = fc.record({
  actionType: fc.constantFrom("ADD", "MODIFY", "REMOVE", "REPLACE", "SUBPLAN_CREATE", "STEP_MARK_INVALID"),
  targetStepId: fc.option(id, { nil: undefined }),
  newStep: fc.option(plannedStep, { nil: undefined }),
  substeps: fc.option(fc.array(plannedStep, { minLength: 1, maxLength: 2 }), { nil: undefined }),
  justification: fc.constantFrom("because", "")
})
const profile = fc.record({
  reasoningDepth: fc.integer({ min: 1, max: 5 }),
  informationSufficiency: fc.double({ min: 0, max: 1, noNaN: true }),
  expectedToolUsage: fc.constantFrom("none", "minimal"),
  outputBreadth: fc.constant("narrow"),
  confidenceRequirement: fc.constant("low"),
  rawInference: fc.constant("p")
})
const budget = fc.record({
  ttl: fc.integer({ min: 1, max: 5 }),
  maxCostUsd: fc.oneof(fc.double({ min: 0.001, max: 0.05, noNaN: true }), fc.constant(10)),
  maxLlmCalls: fc.integer({ min: 1, max: 60 }),
  maxSteps: fc.integer({ min: 1, max: 20 }),
  maxTokens: fc.integer({ min: 500, max: 60_000 })
})

const script = fc.record({
  [PromptId.TASKPROFILE_INFERENCE_USER]: list(profile),
  [PromptId.TASKPROFILE_UPDATE_USER]: list(profile.map((p) => ({ ...p, adjustmentReason: "r" }))),
  [PromptId.PLAN_GENERATION_USER]: list(plan),
  [PromptId.SUPERVISOR_REPAIR_PLAN_USER]: list(plan),
  [PromptId.REASONING_STEP_USER]: list(reasoning),
  [PromptId.VALIDATION_SEMANTIC_USER]: list(fc.record({ issues: fc.array(issue, { maxLength: 3 }) })),
  [PromptId.CONVERGENCE_ASSESSMENT_USER]: list(verdict),
  [PromptId.RECURSIVE_REFINEMENT_USER]: list(fc.record({ actions: fc.array(action, { maxLength: 3 }) })),
  [PromptId.RECURSIVE_SUBPLAN_GENERATION_USER]: list(
    fc.record({ subplanGoal: fc.constant("g"), substeps: fc.array(plannedStep, { minLength: 1, maxLength: 2 }) })
  ),
  [PromptId.SUPERVISOR_REPAIR_JSON_USER]: list(fc.record({ repairedJson: fc.constantFrom("{}", "nope") })),
  [PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER]: list(
    fc.record({ toolInput: fc.constantFrom({ expression: "2 + 3" }, {}) })
  ),
  [PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER]: list(
    fc.record({ replacementTool: fc.constantFrom("calculator", null, "ghost"), justification: fc.constant("j") })
  ),
  [PromptId.ANSWER_SYNTHESIS_USER]: list(
    fc.record({
      answerText: fc.constantFrom("5", ""),
      confidence: fc.double({ min: 0, max: 1, noNaN: true }),
      usedStepIds: fc.array(id, { maxLength: 2 })
    })
  )
})

type Snapshot = { description: string; tool?: string | undefined; toolInput?: unknown; stepOutput: string }

/** Every executed step keeps its definition and output in every later plan snapshot. */
const executedStepsNeverRewritten = (events: ReadonlyArray<RunEvent>): string | undefined => {
  const executed = new Map<string, Snapshot>()
  let passPlan: ReadonlyArray<{ stepId: string; description: string; tool?: string | undefined; toolInput?: unknown }> =
    []
  const check = (
    steps: ReadonlyArray<
      { stepId: string; description: string; tool?: string | undefined; toolInput?: unknown; stepOutput: string }
    >,
    where: string
  ) => {
    for (const [sid, snap] of executed) {
      const now = steps.find((s) => s.stepId === sid)
      if (!now) return `executed step ${sid} disappeared (${where})`
      if (
        now.description !== snap.description || now.tool !== snap.tool ||
        JSON.stringify(now.toolInput) !== JSON.stringify(snap.toolInput) || now.stepOutput !== snap.stepOutput
      ) {
        return `executed step ${sid} was rewritten (${where})`
      }
    }
    return undefined
  }
  for (const e of events) {
    // a new plan is a new attempt (simple mode iterates, escalation plans afresh): its steps are new
    if (e._tag === "PassStarted" && !e.plan) executed.clear()
    if (e._tag === "PassStarted" && e.plan) {
      const bad = check(e.plan.steps, `pass ${e.passNumber} start`)
      if (bad) return bad
      passPlan = e.plan.steps
    }
    if (e._tag === "StepFinished") {
      const def = passPlan.find((s) => s.stepId === e.stepId)
      if (def) {
        executed.set(e.stepId, {
          description: def.description,
          tool: def.tool,
          toolInput: def.toolInput,
          stepOutput: e.stepOutput
        })
      }
    }
    if (e._tag === "RefinementApplied") {
      const bad = check(e.plan.steps, `refinement in pass ${e.passNumber}`)
      if (bad) return bad
    }
    if (e._tag === "RunFinished" && e.plan) {
      const bad = check(e.plan.steps, "final plan")
      if (bad) return bad
    }
  }
  return undefined
}

describe("every script the model could follow", () => {
  it(
    `terminates within every budget, never rewrites an executed step, and its history decodes (${RUNS} scripts)`,
    async () => {
      let scripts = 0
      await fc.assert(
        fc.asyncProperty(script, budget, fc.constantFrom("FULL", "AUTO"), async (s, b, mode) => {
          // instant runs resolve through microtasks only: let the event loop breathe (vitest's worker RPC) now and then
          if (++scripts % 200 === 0) await new Promise((resolve) => setImmediate(resolve))
          // priced like a small hosted model, so the cost cap is exercised too
          const model = Scripted.make(s as any)
          const priced = LanguageModel.make(
            "priced",
            { inputPerMillion: 0.5, outputPerMillion: 1.5 },
            model.service.complete
          )
          const layer = Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel.LanguageModel, priced))
          const { result, events } = await Effect.runPromise(
            Effect.gen(function*() {
              const p = yield* prepare({
                task: "Compute 2 + 3 and explain the sum",
                mode,
                simpleIterations: 2,
                budget: b
              })
              const result = yield* p.execute
              return { result, events: yield* p.events.log }
            }).pipe(Effect.provide(layer))
          )
          expect(result.status).not.toBe("RUNNING")
          expect(events.at(-1)?._tag).toBe("RunFinished")
          expect(result.usage.llmCalls).toBeLessThanOrEqual(b.maxLlmCalls)
          expect(result.usage.steps).toBeLessThanOrEqual(b.maxSteps)
          expect(result.usage.inputTokens + result.usage.outputTokens).toBeLessThanOrEqual(b.maxTokens)
          expect(result.usage.costUsd).toBeLessThanOrEqual(b.maxCostUsd)
          const executionPasses = result.history.passes.filter((p) =>
            p.phases.includes("EXECUTE") || p.phases.includes("RE_EXECUTE")
          ).length
          // simple mode adds at most one pass per iteration (2 here) before the multi-pass TTL applies
          expect(executionPasses).toBeLessThanOrEqual(mode === "FULL" ? b.ttl : b.ttl + 2)
          expect(executedStepsNeverRewritten(events)).toBeUndefined()
          Schema.decodeUnknownSync(ExecutionHistory)(Schema.encodeSync(ExecutionHistory)(result.history))
        }),
        { numRuns: RUNS }
      )
    },
    600_000
  )
})
