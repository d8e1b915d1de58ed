import { Deferred, Effect, Fiber, Layer, ManagedRuntime, Option, Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import * as Agents from "../../src/agents/Agents.js"
import { RunLifecycle } from "../../src/kernel/RunContext.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare, resumeUnfinished } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import { RunStore } from "../../src/store/RunStore.js"
import * as ToolRegistry from "../../src/tools/ToolRegistry.js"
import { freshDatabase } from "../support/database.js"

/**
 * A child run (an agent called as a tool) and its parent as one: cancelling the parent cancels the child; a process
 * stopped while the child runs leaves both unfinished, and start-up recovery resumes the parent only — its reopened
 * step finds the child by its id and resumes it. A tool that waits on a gate holds the child mid-step.
 */
const plan = (tool: string, input: object) => ({
  output: {
    goal: "Answer",
    answer: "{{s1}}",
    steps: [{ stepId: "s1", description: `Use ${tool}`, tool, toolInput: input, dependencies: [] }]
  }
})

const setup = async () => {
  const entered = await Effect.runPromise(Deferred.make<void>())
  const gate = await Effect.runPromise(Deferred.make<void>())
  let calls = 0
  const wait = ToolRegistry.tool({
    name: "gate.wait",
    description: "Waits until the gate opens, then says 42.",
    input: Schema.Struct({}),
    output: Schema.String,
    timeoutMs: 60_000,
    idempotent: true,
    interruptible: true,
    run: () =>
      Effect.sync(() => calls++).pipe(
        Effect.zipRight(Deferred.succeed(entered, undefined)),
        Effect.zipRight(Deferred.await(gate)),
        Effect.as("42")
      )
  })
  let stopping = false
  const model = Scripted.make({
    [PromptId.PLAN_GENERATION_USER]: [plan("agent.math", { task: "Compute 6 * 7" }), plan("gate.wait", {})]
  }, Offline.service)
  const db = freshDatabase()
  await Effect.runPromise(db.setup)
  const base = Layer.mergeAll(
    Aeon.layerWithOwnTools([wait]),
    Layer.succeed(LanguageModel, model.service),
    Database.layer(db),
    Layer.succeed(RunLifecycle, { shuttingDown: Effect.sync(() => stopping) })
  )
  const runtime = ManagedRuntime.make(
    Layer.provideMerge(
      Agents.layer({
        agents: {
          math: { tools: ["gate.wait"], mode: "SIMPLE", memory: false },
          desk: { tools: ["agent:math"], mode: "FULL", memory: false }
        }
      }),
      base
    )
  )
  const statusOf = (id: string) =>
    runtime.runPromise(
      Effect.flatMap(RunStore, (s) => s.getRun(id)).pipe(Effect.map((r) => Option.getOrThrow(r).status))
    )
  const eventsOf = (id: string) => runtime.runPromise(Effect.flatMap(RunStore, (s) => s.events(id)))
  /** The desk's run started, held until its child is inside the gate's call. */
  const startHeld = () =>
    runtime.runPromise(Effect.gen(function*() {
      const p = yield* prepare({ agent: "desk", task: "What is 6 * 7?" })
      // a daemon: it outlives this call (a fiber forked here would end with it)
      const fiber = yield* Effect.forkDaemon(p.execute)
      yield* Deferred.await(entered)
      return { id: p.runId, fiber }
    }))
  return {
    runtime,
    statusOf,
    eventsOf,
    startHeld,
    open: () => Effect.runPromise(Deferred.succeed(gate, undefined)),
    stop: () => void (stopping = true),
    restart: () => void (stopping = false),
    calls: () => calls
  }
}

let rt: ManagedRuntime.ManagedRuntime<any, any> | undefined
afterEach(() => rt?.dispose())

describe("a child run and its parent as one", () => {
  it("cancelling the parent cancels the child under way", async () => {
    const t = await setup()
    rt = t.runtime
    const { fiber, id } = await t.startHeld()
    await t.runtime.runPromise(Fiber.interrupt(fiber))
    expect(await t.statusOf(id)).toBe("CANCELLED")
    expect(await t.statusOf(`${id}.p1.s1`)).toBe("CANCELLED")
  })

  it("stopped mid-child, both stay unfinished; recovery resumes the parent, whose step resumes the child", async () => {
    const t = await setup()
    rt = t.runtime
    const { fiber, id } = await t.startHeld()
    const child = `${id}.p1.s1`
    t.stop()
    await t.runtime.runPromise(Fiber.interrupt(fiber))
    expect(await t.statusOf(id)).toBe("RUNNING")
    expect(await t.statusOf(child)).toBe("RUNNING")
    t.restart()
    await t.open()
    // start-up recovery takes the parent only: the child is its parent's to resume
    const results = await t.runtime.runPromise(resumeUnfinished)
    expect(results.map((r) => r.runId)).toEqual([id])
    expect(results[0]!.status).toBe("CONVERGED")
    expect(await t.statusOf(child)).toBe("CONVERGED")
    const childEvents = await t.eventsOf(child)
    expect(childEvents.filter((e) => e._tag === "RunStarted")).toHaveLength(1)
    expect(childEvents.filter((e) => e._tag === "RunResumed")).toHaveLength(1)
    const parentCalls = (await t.eventsOf(id)).filter((e) => e._tag === "ToolInvoked" && e.tool === "agent.math")
    expect(parentCalls).toHaveLength(1)
    expect(parentCalls[0]?._tag === "ToolInvoked" && parentCalls[0].output).toBe("42")
    // the call cut off in flight, and its one call again
    expect(t.calls()).toBe(2)
  })
})
