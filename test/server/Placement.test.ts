import { Effect, Layer, Option } from "effect"
import { describe, expect, it } from "vitest"
import { register } from "../../src/run/Run.js"
import { ClusterUnavailableError, RunPlacement } from "../../src/runs/Placement.js"
import * as QueuedSweep from "../../src/runs/QueuedSweep.js"
import * as RunManager from "../../src/runs/RunManager.js"
import type { RunLease } from "../../src/store/RunLease.js"
import { RunStore } from "../../src/store/RunStore.js"
import type { ToolRegistry } from "../../src/tools/ToolRegistry.js"
import { claimedBy, storeLayer } from "../support/database.js"
import { offline } from "../support/engine.js"

/**
 * On a cluster, runTask stores the run and sends its Start to the runner that owns it. A Start the cluster cannot
 * take must not leave a run that nothing will ever start, nor refuse the client's retry with the same runId.
 */
const placementFailing = (failures: { count: number }, sent: Array<string>) =>
  Layer.succeed(RunPlacement, {
    runner: "test-runner",
    start: (runId: string) =>
      Effect.suspend(() => {
        sent.push(runId)
        if (failures.count === 0) return Effect.void
        failures.count--
        return Effect.fail(new ClusterUnavailableError({ runId, reason: "storage unreachable" }))
      }),
    cancel: () => Effect.void,
    answer: () => Effect.void
  })

const withManager = <A, E>(
  failures: { count: number },
  sent: Array<string>,
  body: Effect.Effect<A, E, RunManager.RunManager | RunStore | RunLease | RunPlacement | ToolRegistry>
) => {
  const base = Layer.mergeAll(storeLayer(), offline, placementFailing(failures, sent))
  const layer = Layer.provideMerge(RunManager.layer(4), base)
  return Effect.runPromise(Effect.scoped(Effect.provide(body, layer)) as Effect.Effect<A, E, never>)
}

const input = { task: "Compute 2 + 2", mode: "FULL", runId: "report-1" }

describe("runTask on a cluster when the Start cannot be sent", () => {
  it("sends it again: a transient failure does not reach the client", async () => {
    const sent: Array<string> = []
    const run = await withManager(
      { count: 2 },
      sent,
      Effect.flatMap(RunManager.RunManager, (m) => m.start(input))
    )
    expect(run.id).toBe("report-1")
    expect(sent).toEqual(["report-1", "report-1", "report-1"])
  })

  it("still refused: the client gets ClusterUnavailableError, nothing stays stored, and its retry is accepted", async () => {
    const sent: Array<string> = []
    const failures = { count: 100 }
    const outcome = await withManager(
      failures,
      sent,
      Effect.gen(function*() {
        const manager = yield* RunManager.RunManager
        const store = yield* RunStore
        const refused = yield* Effect.flip(manager.start(input))
        const stored = yield* store.getRun("report-1")
        failures.count = 0 // the cluster is reachable again
        const retried = yield* manager.start(input)
        return { refused, stored, retried }
      })
    )
    expect(outcome.refused).toBeInstanceOf(ClusterUnavailableError)
    expect(outcome.refused.message).toBe("the cluster could not take the request for run report-1; try again")
    expect(Option.isNone(outcome.stored)).toBe(true)
    expect(outcome.retried.id).toBe("report-1")
    expect(sent.length).toBe(5) // four tries, then the retry's one
  })
})

describe("a run left QUEUED with no runner (its Start never went)", () => {
  it("is sent again by the sweep, also after a refused send; a run a runner took up is not", async () => {
    const sent: Array<string> = []
    await withManager(
      { count: 1 }, // the sweep's first send is refused: the next look sends it
      sent,
      Effect.gen(function*() {
        // stored as runTask stores it, by a server that died before it sent the Start
        yield* register({ task: "Compute 2 + 2", mode: "FULL", runId: "stranded" }, { status: "QUEUED" })
        yield* register({ task: "Compute 3 + 3", mode: "FULL", runId: "taken" }, { status: "QUEUED" })
        yield* claimedBy("taken", "runner-b")
        yield* Effect.scoped(Effect.zipRight(
          QueuedSweep.sweep({ every: "20 millis", after: 0 }), // in the background of this scope
          Effect.sleep("10 millis").pipe(
            Effect.repeat({ until: () => sent.length >= 2 }),
            Effect.timeout("5 seconds")
          )
        ))
      })
    )
    expect(sent.slice(0, 2)).toEqual(["stranded", "stranded"])
    expect(sent).not.toContain("taken")
  })
})
