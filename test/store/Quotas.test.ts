import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, Layer, ManagedRuntime } from "effect"
import fc from "fast-check"
import * as Aeon from "../../src/Aeon.js"
import { limitsFor, parseQuotas, type QuotaRules, windowOf } from "../../src/domain/Quota.js"
import * as LanguageModel from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import { DEFAULT_PRICES } from "../../src/llm/Pricing.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import * as Database from "../../src/store/Database.js"
import * as QuotaLedger from "../../src/store/QuotaLedger.js"
import * as RunStore from "../../src/store/RunStore.js"
import { backend, freshDatabase } from "../support/database.js"
import { convergingScript } from "../support/scripts.js"

const rules = (text: string): QuotaRules => Either.getOrThrow(parseQuotas(text))

describe("AEON_QUOTAS", () => {
  it("parses users, * and their limits; * fills in what a user has no limit of its own for", () => {
    const r = rules("alice:cost=5/day,tokens=2000000/month; *:runs=100/day,cost=1/day")
    expect(limitsFor(r, "alice")).toEqual([
      { metric: "cost", amount: 5, period: "day" },
      { metric: "tokens", amount: 2000000, period: "month" },
      { metric: "runs", amount: 100, period: "day" }
    ])
    expect(limitsFor(r, "bob")).toEqual([
      { metric: "runs", amount: 100, period: "day" },
      { metric: "cost", amount: 1, period: "day" }
    ])
    expect(limitsFor(rules(""), "bob")).toEqual([])
  })

  it("refuses what is malformed, saying where", () => {
    for (
      const [text, why] of [
        ["alice", /expected USER:LIMIT/],
        ["alice:cost=5/week", /"cost=5\/week" \(for alice\)/],
        ["alice:money=5/day", /expected cost=USD\/day/],
        ["alice:runs=2.5/day", /runs is a whole number/],
        ["alice:runs=2/day,runs=3/day", /runs per day is given twice/],
        ["alice:runs=2/day;alice:cost=1/day", /"alice" is given twice/]
      ] as const
    ) {
      const parsed = parseQuotas(text)
      expect(Either.isLeft(parsed) && parsed.left, text).toMatch(why)
    }
  })

  it("windows are UTC days and months", () => {
    const at = Date.UTC(2026, 10, 30, 23, 59)
    expect(windowOf("day", at)).toEqual({ key: "day:2026-11-30", resetsAt: Date.UTC(2026, 11, 1) })
    expect(windowOf("month", at)).toEqual({ key: "month:2026-11", resetsAt: Date.UTC(2026, 11, 1) })
  })
})

/**
 * A model billed at gpt-4o's rate whose answers report the usage `usage` draws (within what was admitted), the
 * planning's calls answering in 20 tokens: the forecast (sized on them) expects far less than the run spends, so the
 * plan passes its quota check and the calls meet the quota one by one.
 */
const billedModel = (usage: () => { input: number; output: number }) => {
  const scripted = Scripted.make(convergingScript(), Offline.service).service
  return LanguageModel.make(
    "openai:gpt-4o",
    DEFAULT_PRICES["gpt-4o"]!,
    (request) =>
      Effect.map(scripted.complete(request), (r) => {
        const u = PLANNING.includes(request.promptId) ? { input: 100, output: 20 } : usage()
        return { ...r, inputTokens: u.input, outputTokens: Math.min(u.output, request.maxOutputTokens) }
      })
  )
}

const PLANNING: ReadonlyArray<string> = [
  PromptId.TASKPROFILE_INFERENCE_USER,
  PromptId.PLAN_GENERATION_USER,
  PromptId.VALIDATION_SEMANTIC_USER
]

/** "A server": the engine and its own connection pool to the store, with these quotas. */
const server = (
  db: ReturnType<typeof freshDatabase>,
  quotas: QuotaRules,
  usage: () => { input: number; output: number }
) => {
  const client = Database.clientLayer(db).pipe(Layer.orDie)
  const store = Database.storeLayer(7).pipe(Layer.provide(client), Layer.orDie)
  return ManagedRuntime.make(
    Layer.mergeAll(
      Aeon.layerWithOwnTools(),
      Layer.succeed(LanguageModel.LanguageModel, billedModel(usage)),
      store,
      RunStore.sinkLayer.pipe(Layer.provide(store)),
      QuotaLedger.layer(quotas).pipe(Layer.provide(Layer.merge(client, store))),
      client
    )
  )
}

const task = { task: "Compute 6 * 7 and explain it", mode: "FULL", userId: "alice" }
const spentOf = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ cost: number | string }>`SELECT cost_usd AS cost FROM quota_ledger WHERE user_id = 'alice'`
  return rows.reduce((n, r) => n + Number(r.cost), 0)
})
/** What every run of the store really spent: the sum of its LlmCalled events' costs. */
const actualOf = Effect.gen(function*() {
  const store = yield* RunStore.RunStore
  const page = yield* store.listRuns({ first: 500 })
  let total = 0
  for (const r of page.runs) {
    for (const e of yield* store.events(r.id)) if (e._tag === "LlmCalled") total += e.costUsd
  }
  return total
})

describe(`quotas across runs and servers (${backend})`, () => {
  it.live("runs=2/day: the third run is refused with what is left and when it resets, and nothing is stored", () =>
    Effect.gen(function*() {
      const db = freshDatabase()
      yield* db.setup
      const rt = server(db, rules("alice:runs=2/day"), () => ({ input: 100, output: 50 }))
      const run = () => rt.runPromiseExit(Effect.flatMap(prepare(task), (p) => p.execute))
      expect(Exit.isSuccess(yield* Effect.promise(run))).toBe(true)
      expect(Exit.isSuccess(yield* Effect.promise(run))).toBe(true)
      const third = yield* Effect.promise(run)
      expect(Exit.isFailure(third) && JSON.stringify(third.cause)).toMatch(/QuotaExceededError/)
      expect(JSON.stringify(third)).toMatch(/the run is refused: alice has 0 runs of 2 runs per day left \(resets 20/)
      const stored = yield* Effect.promise(() =>
        rt.runPromise(Effect.flatMap(RunStore.RunStore, (s) => s.listRuns({ first: 10 })))
      )
      expect(stored.runs).toHaveLength(2)
      const usage = yield* Effect.promise(() =>
        rt.runPromise(Effect.flatMap(QuotaLedger.Quotas, (q) => q.usage("alice")))
      )
      expect(usage).toMatchObject([{ metric: "runs", used: 2, left: 0 }])
      yield* Effect.promise(() => rt.dispose())
    }))

  it.live("a call that would cross the user's cost quota is not made: the run stops at it, saying what is left", () =>
    Effect.gen(function*() {
      const db = freshDatabase()
      yield* db.setup
      const rt = server(db, rules("alice:cost=0.02/day"), () => ({ input: 150, output: 600 }))
      const result = yield* Effect.promise(() => rt.runPromise(Effect.flatMap(prepare(task), (p) => p.execute)))
      // the planning's calls cost little; then about $0.0064 a call: $0.02 has room for a few, not for the whole run
      expect(result.terminationReason).toBe("budget_exhausted")
      expect(result.ttlExpiration?.exhausted).toBe("quota")
      expect(result.error ?? result.advisories.join(" ")).toMatch(
        /alice has \$0\.\d{4} of \$0\.0200 per day left \(resets/
      )
      const [spent, actual] = yield* Effect.promise(() => rt.runPromise(Effect.all([spentOf, actualOf])))
      expect(spent).toBeCloseTo(actual, 10) // settled to what the calls cost
      expect(spent).toBeLessThanOrEqual(0.02)
      yield* Effect.promise(() => rt.dispose())
    }))

  it.live(
    `${
      backend === "postgres" ? "two servers on one database" : "one server"
    }: one user's calls at once, random costs — what they spend never passes the quota, and it binds (property)`,
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.record({
                most: fc.double({ min: 0.005, max: 0.02, noNaN: true }),
                share: fc.double({ min: 0.5, max: 1, noNaN: true })
              }),
              {
                minLength: 20,
                maxLength: 40
              }
            ),
            async (calls) => {
              const db = freshDatabase()
              await Effect.runPromise(db.setup)
              const quota = rules("alice:cost=0.05/day")
              const servers = (backend === "postgres" ? [0, 1] : [0]).map(() =>
                server(db, quota, () => ({ input: 1, output: 1 }))
              )
              const gates = await Promise.all(
                servers.map((rt) => rt.runPromise(Effect.map(QuotaLedger.Quotas, (q) => q.gate("alice")!)))
              )
              // each call: the most it could cost reserved, then settled to a share of it (what it really cost)
              const outcomes = await Promise.all(calls.map((c, i) =>
                servers[i % servers.length]!.runPromise(
                  gates[i % gates.length]!.reserve({
                    promptId: PromptId.REASONING_STEP_USER,
                    inputTokens: 10,
                    maxOutputTokens: 10,
                    maxCostUsd: c.most
                  }).pipe(
                    Effect.flatMap((r) =>
                      Effect.as(
                        gates[i % gates.length]!.settle([r], { costUsd: c.most * c.share, tokens: 5 }),
                        c.most * c.share
                      )
                    ),
                    Effect.catchTag("BudgetExhaustedError", () => Effect.succeed(undefined))
                  )
                )
              ))
              const spent = await servers[0]!.runPromise(spentOf)
              await Promise.all(servers.map((rt) => rt.dispose()))
              const made = outcomes.filter((o): o is number => o !== undefined)
              const actual = made.reduce((n, x) => n + x, 0)
              expect(actual).toBeLessThanOrEqual(0.05 + 1e-12)
              expect(spent).toBeCloseTo(actual, 9)
              // it binds: together the calls cost at least 40 × $0.0025, twice the quota; some were not made
              expect(made.length).toBeLessThan(calls.length)
              expect(made.length).toBeGreaterThan(0)
            }
          ),
          { numRuns: Number(process.env.AEON_QUOTA_RUNS ?? 25) }
        )
      ),
    180_000
  )
})
