import { Effect, Layer } from "effect"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import * as Guardrails from "../../src/guardrails/Guardrails.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { prepare } from "../../src/run/Run.js"
import * as ToolRegistry from "../../src/tools/ToolRegistry.js"

const EMAIL = "ines.duarte@example.org"
const CARD = "4111 1111 1111 1111"

const runWith = (input: object, set: Guardrails.GuardrailSet = {}) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare({ memory: false, ...input })
      const result = yield* p.execute
      return { result, events: yield* p.events.log, input: p.input }
    }).pipe(
      Effect.provide(
        Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, Offline.service), Guardrails.layer(set))
      )
    )
  )

describe("guardrails on a run (the library)", () => {
  it("input redaction: the model never sees the values, the log holds placeholders and kinds only", async () => {
    const { events, input, result } = await runWith(
      { task: `Compute 6 * 7 for ${EMAIL}, card ${CARD}`, mode: "FULL" },
      { input: [{ type: "pii", action: "redact", kinds: ["email", "card"] }] }
    )
    expect(result.status).toBe("CONVERGED")
    expect(input.task).toBe("Compute 6 * 7 for <EMAIL_1>, card <CARD_1>")
    const log = JSON.stringify(events)
    expect(log).not.toContain(EMAIL)
    expect(log).not.toContain("4111")
    const triggered = events.filter((e) => e._tag === "GuardrailTriggered")
    expect(triggered).toMatchObject([{ point: "input", guardrail: "pii", action: "redact", kinds: ["card", "email"] }])
    expect(events.some((e) => e._tag === "LlmCalled" && e.call?.user.includes("<EMAIL_1>"))).toBe(true)
  })

  it("input block: FAILED, coded GUARDRAIL, no model call, the reason names the guardrail not the text", async () => {
    const { events, result } = await runWith(
      { task: "Compute 6 * 7 for project falcon", mode: "FULL" },
      { input: [{ type: "denylist", name: "codenames", action: "block", words: ["Project Falcon"] }] }
    )
    expect(result.status).toBe("FAILED")
    expect(events.filter((e) => e._tag === "LlmCalled")).toEqual([])
    const end = events.at(-1)
    expect(end).toMatchObject({ _tag: "RunFinished", errorCode: "GUARDRAIL" })
    expect(end?._tag === "RunFinished" && end.error).toBe("guardrail codenames blocked the input: it holds word")
    expect(JSON.stringify(events).toLowerCase()).not.toContain("falcon")
  })

  it("a run's own guardrails add to the server's and cannot remove them", async () => {
    const { events } = await runWith(
      {
        task: `Compute 6 * 7 for ${EMAIL} at 192.168.1.20`,
        mode: "FULL",
        guardrails: { input: [{ type: "pii", action: "redact", kinds: ["ip"] }] }
      },
      { input: [{ type: "pii", action: "redact", kinds: ["email"] }] }
    )
    const started = events.find((e) => e._tag === "RunStarted")
    expect(started?._tag === "RunStarted" && started.task).toBe("Compute 6 * 7 for <EMAIL_1> at <IP_1>")
  })

  it("output block: the answer is withheld, FAILED GUARDRAIL", async () => {
    const { events, result } = await runWith(
      { task: "Compute 6 * 7", mode: "FULL" },
      { output: [{ type: "denylist", action: "block", words: ["42"] }] }
    )
    expect(result.status).toBe("FAILED")
    expect(result.finalAnswer).toBeUndefined()
    const end = events.at(-1)
    expect(end).toMatchObject({ _tag: "RunFinished", errorCode: "GUARDRAIL" })
    // the answer call's record keeps no match either
    const answerCalls = events.filter((e) => e._tag === "LlmCalled" && e.promptId.startsWith("answer_"))
    expect(answerCalls.length).toBeGreaterThan(0)
    expect(JSON.stringify(answerCalls.map((e) => e._tag === "LlmCalled" && e.call?.response))).not.toMatch(/\b42\b/)
  })

  it("a library guardrail (an Effect) that blocks the output", async () => {
    const noDigits: Guardrails.Guardrail = {
      name: "no-digits",
      check: (text) => Effect.succeed(/\d/.test(text) ? Guardrails.block("the answer has digits") : Guardrails.allow)
    }
    const { result } = await runWith({ task: "Compute 6 * 7", mode: "FULL" }, { output: [noDigits] })
    expect(result.status).toBe("FAILED")
    expect(result.error).toBe("guardrail no-digits blocked the output: the answer has digits")
  })
})

describe("the library's layer", () => {
  it("Guardrails.layer beside Aeon.layer (whose AEON_GUARDRAILS gives none) is the one the runs use", async () => {
    const { Guardrails: Exported } = await import("../../src/index.js")
    const layer = Layer.mergeAll(Aeon.layer, Exported.layer({ input: [{ type: "pii", action: "redact" }] })).pipe(
      Layer.provide(Layer.succeed(LanguageModel, Offline.service))
    )
    const started = await Effect.runPromise(
      Effect.map(prepare({ task: "Compute 6 * 7 for ana@example.org", memory: false }), (p) => p.input.task).pipe(
        Effect.provide(Layer.mergeAll(layer, Layer.succeed(LanguageModel, Offline.service)))
      )
    )
    expect(started).toBe("Compute 6 * 7 for <EMAIL_1>")
  })
})

describe("the tool_call point", () => {
  const sent: Array<unknown> = []
  const NOTE = "Call back on +1 415 555 2671 about Project Falcon"
  /** A tool with side effects that keeps what it was given. */
  const send = ToolRegistry.tool({
    name: "ticket.post",
    description: "Posts a note to a ticket.",
    input: Schema.Struct({ note: Schema.String }),
    output: Schema.String,
    timeoutMs: 1_000,
    idempotent: false,
    run: (input) => Effect.sync(() => (sent.push(input), "posted"))
  })
  const plan = {
    plan_generation_user: [{
      output: {
        goal: "Post the note",
        steps: [{ stepId: "s1", description: "Post the note", tool: "ticket.post", toolInput: { note: NOTE } }]
      }
    }]
  }
  const run = (set: Guardrails.GuardrailSet) =>
    Effect.runPromise(
      Effect.gen(function*() {
        const p = yield* prepare({ task: "Post the note to the ticket", mode: "FULL", memory: false })
        const result = yield* p.execute
        return { result, events: yield* p.events.log }
      }).pipe(Effect.provide(Layer.mergeAll(
        Aeon.layerWithTools([send]),
        Layer.succeed(LanguageModel, Scripted.make(plan, Offline.service).service),
        Guardrails.layer(set)
      )))
    )

  it("redact: the tool is given placeholders, and the log records what it was given", async () => {
    sent.length = 0
    const { events } = await run({ tool_call: [{ type: "pii", action: "redact", kinds: ["phone"] }] })
    expect(sent).toEqual([{ note: "Call back on <PHONE_1> about Project Falcon" }])
    const invoked = events.find((e) => e._tag === "ToolInvoked")
    expect(invoked?._tag === "ToolInvoked" && invoked.input).toEqual({
      note: "Call back on <PHONE_1> about Project Falcon"
    })
    expect(events.filter((e) => e._tag === "GuardrailTriggered")).toMatchObject([
      { point: "tool_call", action: "redact", kinds: ["phone"], stepId: "s1" }
    ])
  })

  it("block: the tool never runs, the step fails saying which guardrail", async () => {
    sent.length = 0
    const { events } = await run({ tool_call: [{ type: "denylist", action: "block", words: ["project falcon"] }] })
    expect(sent).toEqual([])
    const invoked = events.filter((e) => e._tag === "ToolInvoked")
    expect(invoked.length).toBeGreaterThan(0)
    for (const e of invoked) {
      expect(e._tag === "ToolInvoked" && e.error).toContain("guardrail denylist blocked the tool call: it holds word")
    }
    // the call's record keeps no match (the plan, as the model wrote it, is the plan's)
    expect(JSON.stringify(invoked).toLowerCase()).not.toContain("falcon")
  })
})

describe("a model-based guardrail", () => {
  it("asks the run's model: its call admitted, counted and recorded like the run's own", async () => {
    const { Contracts } = await import("../../src/prompts/PromptRegistry.js")
    const judge: Guardrails.Guardrail = {
      name: "judge",
      check: (text, context) =>
        context.llm === undefined ? Effect.succeed(Guardrails.allow) : context.llm.generate(Contracts.reasoningStep, {
          request: "Does this answer give medical advice? Answer yes or no.",
          planGoal: "judge the answer",
          stepId: "judge",
          stepDescription: "Judge whether the answer gives medical advice",
          stepIndex: 1,
          totalSteps: 1,
          passNumber: 0,
          phase: "ANSWER",
          ttlRemaining: 1,
          correlationId: context.runId,
          incomingContext: text
        }).pipe(
          Effect.map((r) => (/yes/i.test(r.output.stepOutput) ? Guardrails.block("medical advice") : Guardrails.allow)),
          Effect.orElseSucceed(() => Guardrails.block("the judge could not be asked"))
        )
    }
    const script = {
      fallback: "offline",
      reasoning_step_user: [{ output: { stepOutput: "yes", clarityState: "CLEAR", handoffToNext: "" } }]
    }
    const { events, result } = await Effect.runPromise(
      Effect.gen(function*() {
        const p = yield* prepare({ task: "Compute 6 * 7", mode: "FULL", memory: false })
        const result = yield* p.execute
        return { result, events: yield* p.events.log }
      }).pipe(Effect.provide(Layer.mergeAll(
        Aeon.layerWithTools(),
        Layer.succeed(LanguageModel, Scripted.make(script as Scripted.Script, Offline.service).service),
        Guardrails.layer({ output: [judge] })
      )))
    )
    expect(result.status).toBe("FAILED")
    expect(result.error).toBe("guardrail judge blocked the output: medical advice")
    const calls = events.filter((e) => e._tag === "LlmCalled")
    // the judge's call is the run's last call, recorded with its prompt, and counted in the run's usage
    expect(calls.at(-1)).toMatchObject({ _tag: "LlmCalled", promptId: "reasoning_step_user" })
    expect(result.usage.llmCalls).toBe(calls.length)
  })
})

describe("a run registered, then started elsewhere (a cluster's entity, a queued run)", () => {
  it("says what its input guardrails did, and a blocked input still ends it before any model call", async () => {
    const { storeLayer } = await import("../support/database.js")
    const { register, prepareResume } = await import("../../src/run/Run.js")
    const layer = Layer.mergeAll(
      Aeon.layerWithTools(),
      Layer.succeed(LanguageModel, Offline.service),
      Guardrails.layer({
        input: [{ type: "pii", action: "redact", kinds: ["email"] }, {
          type: "denylist",
          action: "block",
          words: ["falcon"]
        }]
      }),
      storeLayer()
    )
    const { blocked, redacted } = await Effect.runPromise(
      Effect.gen(function*() {
        const start = (task: string) =>
          Effect.flatMap(
            register({ task, memory: false }, { status: "QUEUED" }),
            ({ runId }) => Effect.flatMap(prepareResume(runId), (p) => Effect.zip(p.execute, p.events.log))
          )
        return {
          redacted: yield* start(`Compute 6 * 7 for ${EMAIL}`),
          blocked: yield* start(`Compute 6 * 7 for ${EMAIL} about Falcon`)
        }
      }).pipe(Effect.provide(layer))
    )
    const [done, log] = redacted
    expect(done.status).toBe("CONVERGED")
    expect(log[0]).toMatchObject({ _tag: "RunStarted", task: "Compute 6 * 7 for <EMAIL_1>" })
    expect(log[1]).toMatchObject({ _tag: "GuardrailTriggered", point: "input", kinds: ["email"] })
    const [failed, blockedLog] = blocked
    expect(failed.status).toBe("FAILED")
    expect(blockedLog.map((e) => e._tag)).toEqual([
      "RunStarted",
      "GuardrailTriggered",
      "GuardrailTriggered",
      "RunFinished"
    ])
    expect(JSON.stringify(blockedLog)).not.toContain(EMAIL)
  })
})
