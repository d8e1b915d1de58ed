import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { EventSink } from "../../src/journal/RunJournal.js"
import * as LanguageModelApi from "../../src/llm/LanguageModel.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import { FREE } from "../../src/llm/Pricing.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare, resumeUnfinished } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import { RunStore } from "../../src/store/RunStore.js"
import { dyingSink } from "../support/crash.js"
import { backend, freshDatabase } from "../support/database.js"
import { ledgerTool } from "../support/fixtures.js"
import { convergingScript, planOut, reasoned } from "../support/scripts.js"

const executions: Array<string> = []
const ledger = ledgerTool(executions)

const script = () => ({
  ...convergingScript(),
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    { id: "s1", d: "Write the record 'debit' to the ledger", tool: "ledger.write", input: { record: "debit" } },
    {
      id: "s2",
      d: "Write the record 'credit' to the ledger",
      tool: "ledger.write",
      input: { record: "credit" },
      deps: ["s1"]
    },
    { id: "s3", d: "Explain the two ledger records", deps: ["s2"] }
  ])],
  [PromptId.REASONING_STEP_USER]: [(r: any) => reasoned(`done ${r.input.stepId}`)]
})

const runtime = (
  db: ReturnType<typeof freshDatabase>,
  model: Scripted.ScriptedModel,
  crashAfter?: (e: RunEvent) => boolean
) => {
  const store = Database.storeLayer(7).pipe(Layer.provide(Database.clientLayer(db)), Layer.orDie)
  // a process that dies: once the crash point is persisted, nothing more reaches the database
  let dying: ReturnType<typeof dyingSink> | undefined
  const sink = Layer.effect(EventSink, Effect.map(RunStore, (s) => (dying = dyingSink(s, crashAfter)).sink)).pipe(
    Layer.provide(store)
  )
  const layer = Layer.mergeAll(Aeon.layerWithTools([ledger]), Layer.succeed(LanguageModel, model.service), store, sink)
  const rt = ManagedRuntime.make(layer)
  return {
    rt,
    isCrashed: () => dying?.isCrashed() ?? false,
    /** Settles when the process "dies" (its sink is made with the runtime's layer). */
    death: () => rt.runtime().then(() => dying?.death)
  }
}

describe(`recovery on ${backend}`, () => {
  it(
    "a run cut off mid-pass resumes on a new runtime: completed steps and finished tool calls are not run again",
    async () => {
      executions.length = 0
      const base = freshDatabase()
      const db = backend === "sqlite" ? { ...base, dataDir: mkdtempSync(join(tmpdir(), "aeon-recovery-")) } : base
      await Effect.runPromise(db.setup)

      const first = Scripted.make(script())
      const one = runtime(db, first, (e) => e._tag === "ToolInvoked" && e.stepId === "s2")
      const runId = await one.rt.runPromise(
        prepare({ task: "Record a debit and a credit and explain them", mode: "FULL" }).pipe(Effect.map((p) => {
          Effect.runFork(p.execute)
          return p.runId
        }))
      )
      await one.death()
      expect(one.isCrashed()).toBe(true)
      expect(executions).toEqual(["debit", "credit"])
      await one.rt.dispose()

      const second = Scripted.make(script())
      const two = runtime(db, second)
      const results = await two.rt.runPromise(resumeUnfinished)
      expect(results.map((r) => r.runId)).toEqual([runId])
      expect(results[0]!.status).toBe("CONVERGED")
      expect(executions).toEqual(["debit", "credit"]) // each tool ran exactly once across both processes
      const reasoningAfterRestart = second.calls.filter((c) => c.promptId === PromptId.REASONING_STEP_USER).map((c) =>
        (c.input as { stepId: string }).stepId
      )
      expect(reasoningAfterRestart).toEqual(["s2", "s3"]) // s1 completed before the crash; s2's tool result was reused
      expect(second.calls.some((c) => c.promptId === PromptId.PLAN_GENERATION_USER)).toBe(false)
      const events = await two.rt.runPromise(Effect.flatMap(RunStore, (s) => s.events(runId)))
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      expect(events.filter((e) => e._tag === "RunStarted")).toHaveLength(1)
      expect(events.filter((e) => e._tag === "StepFinished").map((e) => (e as any).stepId)).toEqual(["s1", "s2", "s3"])
      expect(events.filter((e) => e._tag === "ToolInvoked")).toHaveLength(2)
      expect(events.at(-1)).toMatchObject({ _tag: "RunFinished", status: "CONVERGED" })
      const s2 = await two.rt.runPromise(Effect.flatMap(RunStore, (s) => s.getRun(runId)))
      expect(s2._tag === "Some" && s2.value.status).toBe("CONVERGED")
      await two.rt.dispose()
    },
    60_000
  )

  it(
    "resumed on another model: the change is an event, the run's model is the new one, both are shown (#54.9)",
    async () => {
      executions.length = 0
      const base = freshDatabase()
      const db = backend === "sqlite" ? { ...base, dataDir: mkdtempSync(join(tmpdir(), "aeon-recovery-")) } : base
      await Effect.runPromise(db.setup)
      const one = runtime(db, Scripted.make(script()), (e) => e._tag === "ToolInvoked" && e.stepId === "s1")
      const runId = await one.rt.runPromise(
        prepare({ task: "Record a debit and a credit and explain them", mode: "FULL" }).pipe(Effect.map((p) => {
          Effect.runFork(p.execute)
          return p.runId
        }))
      )
      await one.death()
      await one.rt.dispose()

      // the next process has a provider configured: the same answers under another label
      const scripted = Scripted.make(script())
      const provider = {
        ...scripted,
        service: LanguageModelApi.make("openai:gpt-4o-mini", FREE, scripted.service.complete)
      }
      const two = runtime(db, provider)
      const [result] = await two.rt.runPromise(resumeUnfinished)
      expect(result!.status).toBe("CONVERGED")
      expect(result!.model).toBe("openai:gpt-4o-mini")
      expect(result!.models).toEqual(["scripted", "openai:gpt-4o-mini"])
      expect(result!.advisories.join("\n")).toContain(
        "resumed on model openai:gpt-4o-mini: its calls before went to scripted"
      )
      const events = await two.rt.runPromise(Effect.flatMap(RunStore, (s) => s.events(runId)))
      expect(events.find((e) => e._tag === "RunResumed")).toMatchObject({ model: "openai:gpt-4o-mini" })
      const calls = events.flatMap((e) => (e._tag === "LlmCalled" ? [e.model] : []))
      expect(calls[0]).toBe("scripted")
      expect(calls.at(-1)).toBe("openai:gpt-4o-mini")
      await two.rt.dispose()
    },
    60_000
  )

  it("the run's memory comes back: a value memory.write stored before the crash is read after the resume", async () => {
    executions.length = 0
    const base = freshDatabase()
    const db = backend === "sqlite" ? { ...base, dataDir: mkdtempSync(join(tmpdir(), "aeon-recovery-")) } : base
    await Effect.runPromise(db.setup)
    const memoryScript = () => ({
      ...convergingScript(),
      [PromptId.PLAN_GENERATION_USER]: [planOut([
        {
          id: "s1",
          d: "Store the seed 7 in memory under the key seed",
          tool: "memory.write",
          input: { key: "seed", value: 7 }
        },
        {
          id: "s2",
          d: "Write the record 'seeded' to the ledger",
          tool: "ledger.write",
          input: { record: "seeded" },
          deps: ["s1"]
        },
        { id: "s3", d: "Read the seed back from memory", tool: "memory.read", input: { key: "seed" }, deps: ["s2"] }
      ])],
      [PromptId.REASONING_STEP_USER]: [(r: any) => reasoned(`done ${r.input.stepId}`)]
    })
    const one = runtime(db, Scripted.make(memoryScript()), (e) => e._tag === "ToolInvoked" && e.stepId === "s2")
    await one.rt.runPromise(
      prepare({ task: "Seed the memory, record it, read it back", mode: "FULL" }).pipe(Effect.map((p) => {
        Effect.runFork(p.execute)
      }))
    )
    await one.death()
    expect(one.isCrashed()).toBe(true)
    await one.rt.dispose()

    const two = runtime(db, Scripted.make(memoryScript()))
    const [result] = await two.rt.runPromise(resumeUnfinished)
    const events = await two.rt.runPromise(Effect.flatMap(RunStore, (s) => s.events(result!.runId)))
    const readCall = events.find((e) => e._tag === "ToolInvoked" && e.tool === "memory.read")
    expect(readCall).toMatchObject({ output: { key: "seed", found: true, value: 7 } })
    expect(events.filter((e) => e._tag === "ToolInvoked" && e.tool === "memory.write")).toHaveLength(1)
    expect(result!.status).toBe("CONVERGED")
    await two.rt.dispose()
  }, 60_000)
})

/**
 * A run killed after the first event `crashAfter` matches, resumed on a new runtime; and the same run uncrashed.
 * `world()` is the model as a service: each world (uncrashed; crashed then resumed) gets one, whose answers may
 * follow its own history across the restart, as a provider's would.
 */
const crashAndResume = async (
  world: () => () => Scripted.Script,
  input: Record<string, unknown>,
  crashAfter: (e: RunEvent) => boolean
) => {
  const fresh = async () => {
    const base = freshDatabase()
    const db = backend === "sqlite" ? { ...base, dataDir: mkdtempSync(join(tmpdir(), "aeon-killpoint-")) } : base
    await Effect.runPromise(db.setup)
    return db
  }
  const reference = runtime(await fresh(), Scripted.make(world()()))
  const uncrashed = await reference.rt.runPromise(prepare(input).pipe(Effect.flatMap((p) => p.execute)))
  await reference.rt.dispose()
  const db = await fresh()
  const makeScript = world()
  const one = runtime(db, Scripted.make(makeScript()), crashAfter)
  await one.rt.runPromise(prepare(input).pipe(Effect.map((p) => void Effect.runFork(p.execute))))
  await one.death()
  expect(one.isCrashed()).toBe(true)
  await one.rt.dispose()
  const two = runtime(db, Scripted.make(makeScript()))
  const [resumed] = await two.rt.runPromise(resumeUnfinished)
  const events = await two.rt.runPromise(Effect.flatMap(RunStore, (s) => s.events(resumed!.runId)))
  const listed = await two.rt.runPromise(Effect.flatMap(RunStore, (s) => s.listRuns({})))
  await two.rt.dispose()
  return { uncrashed, resumed: resumed!, events, listed }
}

const sameOutcome = (
  a: { status: string; terminationReason?: string | undefined; finalAnswer?: { answerText: string } | undefined },
  b: typeof a
) => {
  expect(b.status).toBe(a.status)
  expect(b.terminationReason).toBe(a.terminationReason)
  expect(b.finalAnswer?.answerText).toBe(a.finalAnswer?.answerText)
}

describe(`named kill points on ${backend}: the resumed run ends as the uncrashed one`, () => {
  const task = { task: "Record a debit and a credit and explain them", mode: "FULL" }
  it("during answer synthesis (the last pass converged and finished, RunFinished not yet stored)", async () => {
    executions.length = 0
    const r = await crashAndResume(() => script, task, (e) => e._tag === "PassFinished" && e.passNumber === 1)
    sameOutcome(r.uncrashed, r.resumed)
    expect(r.resumed.status).toBe("CONVERGED")
    expect(r.events.filter((e) => e._tag === "StepStarted")).toHaveLength(3) // no step ran again
    expect(r.listed.runs.map((x) => x.status)).toEqual(["CONVERGED"])
  }, 60_000)

  it("between the last pass and RunFinished, after a TTL that did not converge", async () => {
    const never = () => ({
      ...script(),
      [PromptId.CONVERGENCE_ASSESSMENT_USER]: [{
        output: {
          converged: false,
          completenessScore: 0.3,
          coherenceScore: 1,
          consistencyAlignment: {},
          reasoning: "r",
          confidence: 1,
          reasonCodes: ["incomplete"]
        }
      }]
    })
    const input = { ...task, budget: { ttl: 1 } }
    const r = await crashAndResume(() => never, input, (e) => e._tag === "PassFinished" && e.passNumber === 1)
    sameOutcome(r.uncrashed, r.resumed)
    expect(r.resumed.terminationReason).toBe("ttl_expired")
    expect(r.resumed.ttlExpiration?.latestPassResult?.passNumber).toBe(1)
  }, 60_000)

  it("after an advisory (a step named a tool that does not exist): the resumed run keeps it", async () => {
    const missingTool = () => ({
      ...script(),
      [PromptId.PLAN_GENERATION_USER]: [planOut([
        { id: "s1", d: "Write the record 'debit' to the ledger", tool: "ledger.append", input: { record: "debit" } },
        { id: "s2", d: "Explain the record", deps: ["s1"] }
      ])],
      [PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER]: [{
        output: { replacementTool: "ledger.write", justification: "the same ledger" }
      }]
    })
    const r = await crashAndResume(() => missingTool, task, (e) => e._tag === "AdvisoryRaised")
    sameOutcome(r.uncrashed, r.resumed)
    expect(r.resumed.advisories).toEqual(r.uncrashed.advisories)
    expect(r.resumed.advisories.join("\n")).toContain("tool ledger.append does not exist, replaced by ledger.write")
    // the record of the restart: a RunResumed event after the advisory
    const tags = r.events.map((e) => e._tag)
    expect(tags.indexOf("RunResumed")).toBeGreaterThan(tags.indexOf("AdvisoryRaised"))
  }, 60_000)

  it("during escalation from simple mode", async () => {
    // the third assessment this world's model is asked for converges (the escalated run's first)
    const escalating = () => {
      let assessments = 0
      return () => ({
        ...script(),
        [PromptId.CONVERGENCE_ASSESSMENT_USER]: [() => {
          const converged = ++assessments >= 3
          return {
            output: {
              converged,
              completenessScore: converged ? 1 : 0.3,
              coherenceScore: 1,
              consistencyAlignment: {},
              reasoning: "r",
              confidence: 1,
              reasonCodes: [converged ? "complete" : "incomplete"]
            }
          }
        }]
      })
    }
    const input = { task: "Record a debit and a credit and explain them", mode: "AUTO", simpleIterations: 2 }
    const r = await crashAndResume(escalating, input, (e) => e._tag === "Escalated")
    sameOutcome(r.uncrashed, r.resumed)
    expect(r.resumed.status).toBe("CONVERGED")
    expect(r.events.filter((e) => e._tag === "Escalated")).toHaveLength(1)
  }, 60_000)
})
