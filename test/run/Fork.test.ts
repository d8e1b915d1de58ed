import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as LM from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import { FREE } from "../../src/llm/Pricing.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { Contracts } from "../../src/prompts/PromptRegistry.js"
import type { RunResult } from "../../src/record/RunResult.js"
import * as Fork from "../../src/run/Fork.js"
import * as Replaying from "../../src/run/Replaying.js"
import { prepare } from "../../src/run/Run.js"
import { RunStore } from "../../src/store/RunStore.js"
import * as ToolRegistry from "../../src/tools/ToolRegistry.js"
import { storeLayer } from "../support/database.js"
import { answer, noIssues, planOut, profile, reasoned, verdict } from "../support/scripts.js"

/** The live model of a fork that must replay everything: any call it gets is counted (and fails the call). */
const liveCalls: Array<string> = []
const forbidden = LM.make("live", FREE, (request) => {
  liveCalls.push(request.promptId)
  return Effect.dieMessage(`the live model was asked ${request.promptId}`)
})

/** A tool with a side effect: each call opens a ticket (counted here). */
let ticketsOpened = 0
const ticket = ToolRegistry.tool({
  name: "open_ticket",
  description: "Opens a support ticket with the given title and returns its number.",
  input: Schema.Struct({ title: Schema.String }),
  output: Schema.Struct({ number: Schema.Number }),
  timeoutMs: 1_000,
  idempotent: false,
  run: () => Effect.sync(() => ({ number: 100 + ++ticketsOpened }))
})

// one store for every run here; each run is given its model
const recording = ManagedRuntime.make(
  Layer.mergeAll(Aeon.layerWithOwnTools([ticket]), Layer.succeed(LanguageModel, Offline.service)).pipe(
    Layer.provideMerge(storeLayer())
  )
)
afterAll(() => recording.dispose())

const recorded = (input: object, model: LM.Service = Offline.service) =>
  recording.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare(input)
      const result = yield* p.execute
      return { runId: p.runId, result, events: yield* (yield* RunStore).events(p.runId) }
    }).pipe(Effect.provideService(LanguageModel, model))
  )

const forkWith = (model: LM.Service, sourceId: string, atSeq: number, changes: Fork.ForkChanges = {}) =>
  recording.runPromise(
    Effect.gen(function*() {
      const p = yield* Fork.fork(sourceId, atSeq, changes)
      const result = yield* p.execute
      return { result, events: yield* p.events.log }
    }).pipe(Effect.provideService(LanguageModel, model)) as Effect.Effect<
      { result: RunResult; events: ReadonlyArray<RunEvent> },
      unknown,
      never
    >
  )

const outcome = (r: RunResult) => ({
  status: r.status,
  answer: r.finalAnswer?.answerText,
  plan: r.plan?.steps.map((s) => [s.stepId, s.status, s.stepOutput]),
  usage: { ...r.usage, replayed: undefined }
})

describe("fork a run at any event (#34)", () => {
  for (
    const [name, input] of [
      ["full mode, arithmetic", { task: "Compute (17 + 25) * 3 and explain the result", mode: "FULL" }],
      ["full mode, two clauses", {
        task: "Add 17 and 25, then multiply the result by 3",
        mode: "FULL",
        budget: { ttl: 3 }
      }],
      ["simple mode", { task: "Compute 6 * 7", mode: "SIMPLE" }]
    ] as const
  ) {
    it(
      `${name}: forked with no change at every event, each fork ends as its source did, from recordings only`,
      async () => {
        const source = await recorded(input)
        expect(source.events.length).toBeGreaterThan(10)
        const started = source.events.find((e) => e._tag === "RunStarted")!.seq
        let toolCalls = 0
        for (const e of source.events.filter((e) => e.seq >= started)) {
          const fork = await forkWith(forbidden, source.runId, e.seq)
          expect(outcome(fork.result), `forked at ${e.seq} (${e._tag})`).toEqual(outcome(source.result))
          expect(fork.events[0]).toMatchObject({ _tag: "RunForked", from: source.runId, atSeq: e.seq })
          // every call after the fork point came from a recording
          const own = fork.events.filter((f) => f._tag === "LlmCalled" && f.seq > (fork.events[0] as any).copied + 1)
          expect(own.every((f) => f._tag === "LlmCalled" && f.replayed)).toBe(true)
          // each labeled with its phase, as in the source (a pass resumed mid-way too)
          expect(own.filter((f) => f._tag === "LlmCalled" && f.call?.phase === undefined), `phases after ${e.seq}`)
            .toEqual([])
          const tools = fork.events.filter((f) =>
            f._tag === "ToolInvoked" && f.seq > (fork.events[0] as any).copied + 1
          )
          expect(tools.every((f) => f._tag === "ToolInvoked" && f.replayed), `tools after ${e.seq}`).toBe(true)
          toolCalls += tools.length
          const counted = own.filter((f) => f._tag === "LlmCalled" && f.repeats === undefined)
          expect(fork.result.usage.replayed?.llmCalls ?? 0).toBe(counted.length)
        }
        expect(liveCalls).toEqual([])
        // the arithmetic runs use the calculator: their forks replayed its calls
        if (input.mode === "FULL") expect(toolCalls).toBeGreaterThan(0)
      },
      120_000
    )
  }

  it("a fork with a larger call budget replays what was recorded, then asks the live model only for what is new", async () => {
    const script = (): Scripted.Script => ({
      [PromptId.TASKPROFILE_INFERENCE_USER]: [profile(2)],
      [PromptId.PLAN_GENERATION_USER]: [planOut([
        { id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expression: "6 * 7" } },
        { id: "s2", d: "Explain the product of 6 and 7", deps: ["s1"] }
      ], "Compute 6 * 7 and explain it")],
      [PromptId.VALIDATION_SEMANTIC_USER]: [noIssues],
      [PromptId.REASONING_STEP_USER]: [reasoned("6 * 7 = 42"), reasoned("42 is six sevens")],
      [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(true)],
      [PromptId.ANSWER_SYNTHESIS_USER]: [{ output: { answerText: "42", confidence: 0.9, usedStepIds: ["s1", "s2"] } }]
    })
    const first = Scripted.make(script(), undefined, { record: true })
    const source = await recorded(
      { task: "Compute 6 * 7 and explain it", mode: "FULL", budget: { maxLlmCalls: 4 } },
      first.service
    )
    expect(source.result.status).toBe("NOT_CONVERGED")
    expect(source.result.terminationReason).toBe("budget_exhausted")
    const sourceCalls = first.calls.length
    // forked where it started, with room for more calls: the 4 recorded calls are replayed, the rest are live
    const second = Scripted.make(script(), undefined, { record: true })
    const started = source.events.find((e) => e._tag === "RunStarted")!.seq
    const fork = await forkWith(second.service, source.runId, started, { budget: { maxLlmCalls: 40 } })
    expect(fork.result.status).toBe("CONVERGED")
    const calls = fork.events.filter((e) => e._tag === "LlmCalled")
    expect(calls.filter((e) => e._tag === "LlmCalled" && e.replayed).length).toBe(sourceCalls)
    expect(second.calls.length).toBe(calls.length - sourceCalls)
    expect(second.calls.length).toBeGreaterThan(0)
    // the live calls are those the source never made
    const replayedPrompts = calls.slice(0, sourceCalls).map((e) => (e as any).promptId)
    expect(replayedPrompts).toEqual(first.calls.map((c) => c.promptId))
    expect(fork.result.usage.replayed).toEqual({ llmCalls: sourceCalls, costUsd: 0 })
  })

  /** Explain a printer fault (s1), then open a ticket for it (s2, a tool with a side effect). */
  const ticketScript = (): Scripted.Script => ({
    [PromptId.TASKPROFILE_INFERENCE_USER]: [profile(2)],
    [PromptId.PLAN_GENERATION_USER]: [planOut([
      { id: "s1", d: "Explain why the office printer prints blank pages" },
      {
        id: "s2",
        d: "Open a support ticket titled printer prints blank pages",
        tool: "open_ticket",
        input: {
          title: "printer prints blank pages"
        },
        deps: ["s1"]
      },
      { id: "s3", d: "Summarise the fault and the ticket number for the office", deps: ["s2"] }
    ], "Report the printer fault")],
    [PromptId.VALIDATION_SEMANTIC_USER]: [noIssues],
    [PromptId.REASONING_STEP_USER]: [reasoned("the toner is empty"), reasoned("ticket opened"), reasoned("done")],
    [PromptId.CONVERGENCE_ASSESSMENT_USER]: [verdict(true)],
    [PromptId.ANSWER_SYNTHESIS_USER]: [answer("Toner empty; ticket opened", ["s1", "s2", "s3"])]
  })
  const ticketTask = { task: "Report the printer fault and open a ticket", mode: "FULL" }
  const ownEvents = (events: ReadonlyArray<RunEvent>) =>
    events.filter((e) => e.seq > (events[0] as { copied: number }).copied + 1)

  it("a fork's tool calls are answered by their recordings while it replays: a side effect is not made again", async () => {
    ticketsOpened = 0
    const source = await recorded(ticketTask, Scripted.make(ticketScript()).service)
    expect(source.result.status).toBe("CONVERGED")
    expect(ticketsOpened).toBe(1)
    const started = source.events.find((e) => e._tag === "RunStarted")!.seq
    const fork = await forkWith(forbidden, source.runId, started)
    expect(outcome(fork.result)).toEqual(outcome(source.result))
    expect(ticketsOpened).toBe(1)
    const tools = ownEvents(fork.events).filter((e) => e._tag === "ToolInvoked")
    expect(tools).toHaveLength(1)
    expect(tools[0]).toMatchObject({ tool: "open_ticket", output: { number: 101 }, replayed: true })
  })

  it("a plan edit at a pass's end: the calls before it are not asked again, the removed step never runs, a call that differs goes live and so do the tools after it", async () => {
    ticketsOpened = 0
    const source = await recorded(ticketTask, Scripted.make(ticketScript()).service)
    expect(ticketsOpened).toBe(1)
    const planEnd = source.events.find((e) => e._tag === "PassFinished")!
    // s1 rewritten: its reasoning prompt differs from the recording, so it and everything after it are live
    const live = Scripted.make(ticketScript(), undefined, { record: true })
    const fork = await forkWith(live.service, source.runId, planEnd.seq, {
      planEdits: [
        { actionType: "MODIFY", targetStepId: "s1", newStep: { description: "Explain why the printer jams" } },
        { actionType: "REMOVE", targetStepId: "s3", justification: "no summary needed" }
      ]
    })
    expect(fork.result.status).toBe("CONVERGED")
    const own = ownEvents(fork.events)
    expect(own[0]).toMatchObject({ _tag: "RefinementApplied", passNumber: planEnd.passNumber })
    const started = own.filter((e) => e._tag === "StepStarted").map((e) => (e as { stepId: string }).stepId)
    expect(started).toEqual(["s1", "s2"])
    // nothing before the fork point was asked again; from s1 on the live model answers
    expect(live.calls.map((c) => c.promptId)).not.toContain(PromptId.TASKPROFILE_INFERENCE_USER)
    expect(live.calls.map((c) => c.promptId)).not.toContain(PromptId.PLAN_GENERATION_USER)
    expect(live.calls[0]!.promptId).toBe(PromptId.REASONING_STEP_USER)
    expect(own.filter((e) => e._tag === "LlmCalled" && e.replayed)).toEqual([])
    // the model went live before the ticket step: the ticket is opened again
    expect(ticketsOpened).toBe(2)
    expect(own.find((e) => e._tag === "ToolInvoked")).not.toHaveProperty("replayed")
  })

  it("a fork may change its model to another configured one: its live calls go there; an unknown model is refused", async () => {
    const source = await recorded(ticketTask, Scripted.make(ticketScript()).service)
    const planEnd = source.events.find((e) => e._tag === "PassFinished")!.seq
    const before = liveCalls.length
    // the server's model is `forbidden` (label "live"); the fork asks for the offline stand-in
    const fork = await forkWith(forbidden, source.runId, planEnd, {
      model: "offline",
      planEdits: [{
        actionType: "MODIFY",
        targetStepId: "s1",
        newStep: { description: "Explain why the printer jams" }
      }]
    })
    expect(liveCalls.length).toBe(before)
    expect(fork.events[0]).toMatchObject({ _tag: "RunForked", changed: ["model", "planEdits"], model: "offline" })
    const live = ownEvents(fork.events).filter((e) => e._tag === "LlmCalled" && !e.replayed)
    expect(live.length).toBeGreaterThan(0)
    expect(live.every((e) => e._tag === "LlmCalled" && e.model === "offline")).toBe(true)
    const refused = await recording.runPromise(
      Effect.flip(Fork.create(source.runId, planEnd, { model: "openai:gpt-9" })).pipe(
        Effect.provideService(LanguageModel, forbidden)
      ) as Effect.Effect<any>
    )
    expect(refused).toMatchObject({
      _tag: "InvalidRunInputError",
      message: expect.stringContaining(`model "openai:gpt-9" is not configured here: one of live, offline`)
    })
  })

  const unfinishedRuns = () => recording.runPromise(Effect.flatMap(RunStore, (s) => s.unfinished))

  it("refuses a plan edit away from a pass's end, and an edit the validator refuses; the source is untouched", async () => {
    const source = await recorded(ticketTask, Scripted.make(ticketScript()).service)
    const refused = (at: number, planEdits: Array<unknown>) =>
      recording.runPromise(Effect.flip(Fork.create(source.runId, at, { planEdits })) as Effect.Effect<any>)
    const planEnd = source.events.find((e) => e._tag === "PassFinished")!.seq
    const remove = [{ actionType: "REMOVE", targetStepId: "s3" }]
    expect(await refused(planEnd - 1, remove)).toMatchObject({
      _tag: "InvalidRunInputError",
      message: expect.stringContaining("fork at a PassFinished event")
    })
    expect(await refused(planEnd, [{ actionType: "MODIFY", targetStepId: "s9", newStep: { description: "x" } }]))
      .toMatchObject({ message: expect.stringContaining("s9") })
    expect(await refused(planEnd, [{ actionType: "ADD", newStep: { description: "Call it", tool: "no_such_tool" } }]))
      .toMatchObject({ message: expect.stringContaining("fails validation") })
    expect(await refused(planEnd, [{ actionType: "FROB" }])).toMatchObject({
      message: expect.stringContaining("edit 1")
    })
    expect(await unfinishedRuns()).toEqual([])
    expect(await recording.runPromise(Effect.flatMap(RunStore, (s) => s.events(source.runId)))).toEqual(source.events)
  })

  it("refuses a seq outside the run, a change after its end, an unknown run; the source is untouched", async () => {
    const source = await recorded({ task: "Compute 2 + 2", mode: "FULL" })
    const last = source.events.at(-1)!.seq
    const refused = (run: string, at: number, changes: Fork.ForkChanges = {}) =>
      recording.runPromise(Effect.flip(Fork.create(run, at, changes)) as Effect.Effect<any>)
    expect(await refused(source.runId, last + 1)).toMatchObject({
      _tag: "InvalidRunInputError",
      message: expect.stringContaining(`to ${last}`)
    })
    expect(await refused(source.runId, last, { budget: { ttl: 9 } })).toMatchObject({
      message: expect.stringContaining("fork before its RunFinished")
    })
    expect(await refused(source.runId, 2, { approval: { decision: "APPROVE" } })).toMatchObject({
      message: expect.stringContaining("no approval request is open")
    })
    expect(await refused("nope", 1)).toMatchObject({ _tag: "RunNotFoundError" })
    expect(await recording.runPromise(Effect.flatMap(RunStore, (s) => s.events(source.runId)))).toEqual(source.events)
  })
})

describe("replay a recorded run with today's code (#34 item 2)", () => {
  it("an unchanged engine replays it identically, asking no model", async () => {
    const source = await recorded({ task: "Compute (17 + 25) * 3 and explain the result", mode: "FULL" })
    const replayed = await recording.runPromise(
      Replaying.replay(source.runId).pipe(Effect.provideService(LanguageModel, forbidden)) as Effect.Effect<any>
    )
    expect(replayed.divergence).toBeUndefined()
    expect(replayed.result.status).toBe(source.result.status)
    expect(liveCalls).toEqual([])
  })

  it("after a prompt's template changed, the first divergence names that prompt's call", async () => {
    const source = await recorded({ task: "Compute (17 + 25) * 3 and explain the result", mode: "FULL" })
    const contract = Contracts.answerSynthesis as { user: { template: string } }
    const before = contract.user.template
    contract.user.template = `${before}\nWrite it for a child.`
    try {
      const replayed = await recording.runPromise(
        Replaying.replay(source.runId).pipe(Effect.provideService(LanguageModel, forbidden)) as Effect.Effect<any>
      )
      expect(replayed.divergence).toMatchObject({
        expected: { type: "LlmCalled", event: { promptId: "answer_synthesis_user" } },
        got: { type: "LlmCalled", event: { promptId: "answer_synthesis_user", error: "ModelUnavailableError" } }
      })
      const expectedSeq = source.events.find((e) =>
        e._tag === "LlmCalled" && e.promptId === "answer_synthesis_user"
      )!.seq
      expect(replayed.divergence.seq).toBe(expectedSeq)
    } finally {
      contract.user.template = before
    }
    expect(liveCalls).toEqual([])
  })
})

describe("a typed run's value in replay and fork (#55 item 2)", () => {
  const schema = {
    type: "object",
    properties: { product: { type: "number" }, factors: { type: "array", items: { type: "number" } } },
    required: ["product", "factors"]
  }
  it("replayed with no model, and forked from its start, the run has the same data", async () => {
    const model = Scripted.make({
      [PromptId.ANSWER_TYPED_USER]: [{ output: { product: 42, factors: [6, 7] } }]
    }, Offline.service).service
    const source = await recorded({ task: "Compute 6 * 7", mode: "FULL", outputSchema: schema, memory: false }, model)
    expect(source.result.finalAnswer?.data).toEqual({ product: 42, factors: [6, 7] })
    const replayed = await recording.runPromise(
      Replaying.replay(source.runId).pipe(Effect.provideService(LanguageModel, forbidden)) as Effect.Effect<any>
    )
    expect(replayed.divergence, JSON.stringify(replayed.divergence)).toBeUndefined()
    expect(replayed.result.finalAnswer.data).toEqual({ product: 42, factors: [6, 7] })
    const started = source.events.find((e) => e._tag === "RunStarted")!
    const forked = await forkWith(forbidden, source.runId, started.seq)
    expect(forked.result.finalAnswer?.data).toEqual({ product: 42, factors: [6, 7] })
    expect(liveCalls).toEqual([])
  })
})
