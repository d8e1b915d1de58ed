import { Effect, Either, Layer, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as LM from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import * as Eval from "../../src/run/Eval.js"
import { RunStore } from "../../src/store/RunStore.js"
import { storeLayer } from "../support/database.js"

const runtime = ManagedRuntime.make(Layer.mergeAll(Aeon.layerWithOwnTools()).pipe(Layer.provideMerge(storeLayer())))
afterAll(() => runtime.dispose())

/** $1 per million tokens either way: every call has a cost to count. */
const PRICE = { inputPerMillion: 1, outputPerMillion: 1 }

const evaluate = (
  cases: ReadonlyArray<unknown>,
  judge: Scripted.Script,
  options: Parameters<typeof Eval.run>[1] = {}
) => {
  const scripted = Scripted.make(judge, Offline.service)
  const model = LM.make("priced", PRICE, scripted.service.complete)
  const parsed = Either.getOrThrow(Eval.parseCases(cases.map((c) => JSON.stringify(c)).join("\n")))
  return runtime.runPromise(Eval.run(parsed, options).pipe(Effect.provideService(LanguageModel, model)))
    .then((report) => ({ report, calls: scripted.calls }))
}

const product = { id: "product", task: "Compute 6 * 7" }

describe("eval scoring beyond regexes (#34 item 4)", () => {
  it("a rubric is judged by the model through the eval_rubric prompt: its verdict, reasoning, call and cost are in the report", async () => {
    const { calls, report } = await evaluate(
      [{ ...product, expect: { rubric: "The answer explains why 6 * 7 is 42 in words" } }],
      {
        [PromptId.EVAL_RUBRIC_USER]: [{
          output: { passed: false, score: 0.25, reasoning: "it states 42 but explains nothing" },
          inputTokens: 300_000,
          outputTokens: 100_000
        }]
      }
    )
    const c = report.cases[0]!
    expect(c.passed).toBe(false)
    expect(c.why).toEqual(["the rubric is not met: it states 42 but explains nothing"])
    expect(c.rubric).toMatchObject({ passed: false, score: 0.25, call: { costUsd: 0.4, inputTokens: 300_000 } })
    // the judge saw the rubric, the task and the run's stored answer
    const judged = calls.filter((r) => r.promptId === PromptId.EVAL_RUBRIC_USER)
    expect(judged).toHaveLength(1)
    const events = await runtime.runPromise(Effect.flatMap(RunStore, (s) => s.events(c.runId)))
    const finished = events.find((e) => e._tag === "RunFinished")
    const answer = finished?._tag === "RunFinished" ? finished.finalAnswer?.answerText : undefined
    expect(answer).toContain("42")
    expect(judged[0]!.user).toContain("The answer explains why 6 * 7 is 42 in words")
    expect(judged[0]!.user).toContain("Compute 6 * 7")
    expect(judged[0]!.user).toContain(answer)
    expect(c.rubric!.call.user).toBe(judged[0]!.user)
    // the eval's cost is the run's and the judge's
    const runCost = c.costUsd - 0.4
    expect(runCost).toBeGreaterThan(0)
    expect(report.totals.costUsd).toBeCloseTo(c.costUsd, 10)
  })

  it("an earlier report's verdict is reused while the judging prompt is the same: no call, no cost", async () => {
    const verdict = { output: { passed: true, score: 0.9, reasoning: "fine" }, inputTokens: 10, outputTokens: 10 }
    const first = await evaluate([{ ...product, expect: { rubric: "Says 42" } }], {
      [PromptId.EVAL_RUBRIC_USER]: [verdict]
    })
    const before = { product: first.report.cases[0]!.rubric! }
    const again = await evaluate([{ ...product, expect: { rubric: "Says 42" } }], {
      [PromptId.EVAL_RUBRIC_USER]: [{ error: { status: 500 } }]
    }, { judgedBefore: before })
    expect(again.calls.filter((r) => r.promptId === PromptId.EVAL_RUBRIC_USER)).toEqual([])
    expect(again.report.cases[0]!.rubric).toMatchObject({ passed: true, call: { costUsd: 0, replayed: true } })
    // another rubric is another prompt: judged again
    const changed = await evaluate([{ ...product, expect: { rubric: "Says 42 twice" } }], {
      [PromptId.EVAL_RUBRIC_USER]: [verdict]
    }, { judgedBefore: before })
    expect(changed.calls.filter((r) => r.promptId === PromptId.EVAL_RUBRIC_USER)).toHaveLength(1)
  })

  it("the engine's own criteria: answer predicates on the final answer, thresholds and reason codes on the last assessment", async () => {
    const { report } = await evaluate([
      { ...product, id: "held", expect: { criteria: { answerMentions: ["42"], completenessThreshold: 1 } } },
      { ...product, id: "missing-term", expect: { criteria: { answerMentions: ["forty-two"] } } },
      { ...product, id: "reason-code", expect: { criteria: { requiredReasonCodes: ["peer_reviewed"] } } }
    ], {})
    const byId = Object.fromEntries(report.cases.map((c) => [c.id, c]))
    expect(byId["held"]!.why).toEqual([])
    expect(byId["missing-term"]!.why).toEqual(["criteria: answer_missing_terms:forty-two"])
    expect(byId["reason-code"]!.why).toEqual(["criteria: reason codes missing: peer_reviewed"])
  })

  it("a case's criteria and rubric are checked with the file: a bad one is refused before anything runs", () => {
    const bad = Eval.parseCases(
      `{"id":"a","task":"Compute 1 + 1","expect":{"criteria":{"completenessThreshold":2}}}\n`
    )
    expect(bad).toMatchObject({ _tag: "Left", left: expect.stringContaining("completenessThreshold") })
    const empty = Eval.parseCases(`{"id":"a","task":"Compute 1 + 1","expect":{"rubric":""}}\n`)
    expect(empty).toMatchObject({ _tag: "Left", left: expect.stringContaining("rubric must not be empty") })
  })
})

describe("an eval case expects a typed run's data (#55 item 3)", () => {
  const schema = {
    type: "object",
    properties: { product: { type: "number" }, factors: { type: "array", items: { type: "number" } } },
    required: ["product", "factors"]
  }
  const typed = { [PromptId.ANSWER_TYPED_USER]: [{ output: { product: 42, factors: [6, 7] } }] }

  it("deep equality: passes on the same value, fails naming both values otherwise", async () => {
    const { report } = await evaluate([
      { id: "same", task: "Compute 6 * 7", outputSchema: schema, expect: { data: { factors: [6, 7], product: 42 } } },
      { id: "other", task: "Compute 6 * 7", outputSchema: schema, expect: { data: { product: 41, factors: [6, 7] } } }
    ], typed)
    expect(report.cases.map((c) => c.passed)).toEqual([true, false])
    expect(report.cases[1]!.why.join(" ")).toContain("expected {\"product\":41")
  })

  it("a JSON Schema of the case's own: the paths that break it; a case without data fails saying so", async () => {
    const { report } = await evaluate([
      {
        id: "bounded",
        task: "Compute 6 * 7",
        outputSchema: schema,
        expect: { dataSchema: { type: "object", properties: { product: { maximum: 40 } } } }
      },
      { id: "untyped", task: "Compute 6 * 7", expect: { data: 42 } }
    ], typed)
    expect(report.cases[0]!.why).toEqual(["the data breaks expect.dataSchema at /product: must be <= 40"])
    expect(report.cases[1]!.why).toEqual(["the answer has no data (a value of the run's output schema)"])
  })
})
