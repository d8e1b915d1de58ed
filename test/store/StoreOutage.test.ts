import { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option, Stream } from "effect"
import { describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import type { RunEvent } from "../../src/domain/RunEvent.js"
import { EventSink } from "../../src/journal/RunJournal.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare, prepareResume } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import { RunStore, type Service as Store, sinkOf } from "../../src/store/RunStore.js"
import * as StoreOutages from "../../src/store/StoreOutages.js"
import { storeError } from "../../src/store/StoreValues.js"
import { backend, freshDatabase } from "../support/database.js"
import { convergingScript, planOut, reasoned } from "../support/scripts.js"

const script = () => ({
  ...convergingScript(),
  [PromptId.PLAN_GENERATION_USER]: [planOut([
    { id: "s1", d: "Compute 6 * 7 with the calculator", tool: "calculator", input: { expression: "6 * 7" } },
    { id: "s2", d: "Explain the product", deps: ["s1"] }
  ])],
  [PromptId.REASONING_STEP_USER]: [(r: any) => reasoned(`done ${r.input.stepId}`)]
})

/** The disk fills: SQLite's own code, as better-sqlite3 raises it, on the appends `failing` says. */
const diskFull = (operation: string) =>
  storeError(operation)(
    new SqlError({ cause: Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }) })
  )

/** The store, its appends failing while `failing(n)` (the n-th append, from 1) says so. */
const failingAppends = (store: Store, failing: (n: number) => boolean): Store => {
  let n = 0
  return {
    ...store,
    append: (events, log, fence, record) =>
      Effect.suspend(
        () => (failing(++n) ? Effect.fail(diskFull("appending")) : store.append(events, log, fence, record))
      )
  }
}

const runtime = (db: ReturnType<typeof freshDatabase>, boundMs: number, failing: (n: number) => boolean) => {
  const real = Database.storeLayer(7).pipe(Layer.provide(Database.clientLayer(db)), Layer.orDie)
  const store = Layer.effect(RunStore, Effect.map(RunStore, (s) => failingAppends(s, failing))).pipe(
    Layer.provide(real)
  )
  const sink = Layer.effect(EventSink, Effect.map(RunStore, (s) => sinkOf(s))).pipe(Layer.provide(store))
  const outages = Layer.effect(StoreOutages.StoreOutages, StoreOutages.make(boundMs))
  const model = Scripted.make(script())
  const layer = Layer.mergeAll(
    Aeon.layerWithTools(),
    Layer.succeed(LanguageModel, model.service),
    real,
    sink,
    outages
  )
  return ManagedRuntime.make(layer)
}

/** The causes the outage service said, each time its set of waiting runs changed. */
const watchWaiting = Effect.gen(function*() {
  const outages = yield* StoreOutages.StoreOutages
  const seen: Array<Array<string>> = []
  yield* Effect.forkDaemon(
    Stream.runForEach(outages.waiting.changes, (m) => Effect.sync(() => seen.push([...m.values()].map((w) => w.cause))))
  )
  return seen
})

const gapless = (events: ReadonlyArray<RunEvent>) => events.every((e, i) => e.seq === i + 1)
const once = (events: ReadonlyArray<RunEvent>, tag: string) => {
  const ids = events.filter((e) => e._tag === tag).map((e) => (e as { stepId: string }).stepId)
  return ids.length === new Set(ids).size
}

describe(`a store that fails mid-run (${backend})`, () => {
  it("the writes wait and are written again when the store answers: the run converges, its events gapless, each step once", async () => {
    // the 2nd to the 5th appends fail (the disk full), then the disk has room again
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const rt = runtime(db, 60_000, (n) => n >= 2 && n <= 5)
    const seen = await rt.runPromise(watchWaiting)
    const { result, runId } = await rt.runPromise(Effect.gen(function*() {
      const p = yield* prepare({ task: "Compute 6 * 7 and explain it", mode: "FULL" })
      return { result: yield* p.execute, runId: p.runId }
    }))
    expect(result.status).toBe("CONVERGED")
    const stored = await rt.runPromise(Effect.flatMap(RunStore, (s) => s.events(runId)))
    expect(stored.at(-1)?._tag).toBe("RunFinished")
    expect(gapless(stored)).toBe(true)
    expect(once(stored, "StepStarted") && once(stored, "StepFinished") && once(stored, "ToolInvoked")).toBe(true)
    // the run was said to wait, with the cause in words, and no longer once the store answered
    expect(
      seen.some((causes) => causes.length === 1 && causes[0]!.includes("disk holding the embedded database is full"))
    )
      .toBe(true)
    expect(seen.at(-1)).toEqual([])
    // the run's record says it waited, and why
    expect(result.advisories.some((a) => /^the run waited [\d.]+ s for its store: the disk holding/.test(a))).toBe(true)
    await rt.dispose()
  })

  it("past the bound the run's attempt ends here, unfinished; once the store is back it resumes and converges", async () => {
    // from the 2nd append on (RunStarted, a durability point, is the 1st alone), the disk stays full until `back`
    let back = false
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const rt = runtime(db, 300, (n) => n >= 2 && !back)
    const { exit, runId } = await rt.runPromise(Effect.gen(function*() {
      const p = yield* prepare({ task: "Compute 6 * 7 and explain it", mode: "FULL" })
      return { exit: yield* Effect.exit(p.execute), runId: p.runId }
    }))
    const defect = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined
    expect(defect).toMatchObject({ _tag: "StoreOutageError", runId })
    expect(String((defect as Error).message)).toContain("the disk holding the embedded database is full")
    const before = await rt.runPromise(Effect.flatMap(RunStore, (s) => s.events(runId)))
    expect(before.some((e) => e._tag === "RunFinished")).toBe(false)
    expect((await rt.runPromise(Effect.flatMap(RunStore, (s) => s.getRun(runId)))).pipe(Option.map((r) => r.status)))
      .toEqual(Option.some("RUNNING"))
    // the store is back: the run resumes from what was stored
    back = true
    const resumed = await rt.runPromise(Effect.flatMap(prepareResume(runId), (p) => p.execute))
    expect(resumed.status).toBe("CONVERGED")
    const stored = await rt.runPromise(Effect.flatMap(RunStore, (s) => s.events(runId)))
    expect(gapless(stored)).toBe(true)
    expect(stored.filter((e) => e._tag === "RunFinished")).toHaveLength(1)
    await rt.dispose()
  })
})
