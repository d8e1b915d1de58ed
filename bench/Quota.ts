import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseQuotas } from "../src/domain/Quota.js"
import { PromptId } from "../src/prompts/PromptId.js"
import * as Database from "../src/store/Database.js"
import * as QuotaLedger from "../src/store/QuotaLedger.js"
import { RunStore } from "../src/store/RunStore.js"
import { median } from "./support.js"

/**
 * Row 18: what the quota costs a model call on the embedded SQLite store (a file, as a server keeps it): the call's
 * reservation before it is made and its settlement after (two transactions), for a user with a cost limit per day and
 * a token limit per month. The floor beside it, in the same run: appending one event to a run's log.
 */
export const quotaCheck = async (calls: number) => {
  const db = { dataDir: mkdtempSync(join(tmpdir(), "aeon-bench-quota-")) }
  const rules = Effect.runSync(Effect.either(parseQuotas("alice:cost=1000000/day,tokens=1000000000000/month")))
  if (rules._tag === "Left") throw new Error(rules.left)
  const client = Database.clientLayer(db).pipe(Layer.orDie)
  const store = Database.storeLayer(7).pipe(Layer.provide(client), Layer.orDie)
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(store, client, QuotaLedger.layer(rules.right).pipe(Layer.provide(Layer.merge(client, store))))
  )
  const gate = await runtime.runPromise(Effect.map(QuotaLedger.Quotas, (q) => q.gate("alice")!))
  const estimate = {
    promptId: PromptId.REASONING_STEP_USER,
    inputTokens: 900,
    maxOutputTokens: 1024,
    maxCostUsd: 0.0007
  }
  const call = Effect.flatMap(gate.reserve(estimate), (r) => gate.settle([r], { costUsd: 0.0002, tokens: 1100 })).pipe(
    Effect.orDie
  )
  const storeService = await runtime.runPromise(RunStore)
  const runId = "bench-quota"
  await runtime.runPromise(
    storeService.createRun({ id: runId, task: "t", mode: "FULL", input: {}, status: "RUNNING" }).pipe(Effect.orDie)
  )
  let seq = 0
  const append = Effect.suspend(() =>
    storeService.append([{ _tag: "AdvisoryRaised", runId, seq: ++seq, at: Date.now(), passNumber: 1, advisory: "x" }])
  ).pipe(Effect.orDie)
  const time = async (effect: Effect.Effect<unknown>) => {
    const samples: Array<number> = []
    for (let i = 0; i < calls; i++) {
      const t = performance.now()
      await runtime.runPromise(effect)
      samples.push(performance.now() - t)
    }
    return median(samples.slice(Math.floor(calls / 10)))
  }
  await time(call) // warm-up
  await time(append)
  const quotaMs = await time(call)
  const appendMs = await time(append)
  await runtime.dispose()
  return { calls, quotaMs, appendMs }
}
