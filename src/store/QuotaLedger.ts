import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Config, ConfigError, Context, Data, Effect, Either, Layer } from "effect"
import { BudgetExhaustedError, QuotaExceededError } from "../domain/Errors.js"
import {
  ANONYMOUS,
  describeLeft,
  limitsFor,
  NO_QUOTAS,
  parseQuotas,
  type QuotaLimit,
  type QuotaRules,
  type QuotaUsage,
  windowOf
} from "../domain/Quota.js"
import type { QuotaGate, Reserved } from "../kernel/BudgetGuard.js"
import { type StoreError, storeError } from "./StoreValues.js"

/**
 * Users' quotas (AEON_QUOTAS) kept in the store every server shares: a row per user and window (quota_ledger). A run
 * is counted when it is admitted; a model call reserves the most it could cost before it is made and is settled to
 * what it used once recorded. Every change that spends is one conditional UPDATE (`… + x <= limit`), all the user's
 * windows in one transaction: two servers cannot both take the last dollar, and the ledger never passes a limit.
 */
export interface Service {
  readonly rules: QuotaRules
  /** A run starts: counted against the user's runs; refused when a limit has no room left. */
  readonly admitRun: (userId: string | undefined) => Effect.Effect<void, QuotaExceededError | StoreError>
  /** The gate a run of this user meets at each call; none when no limit applies to the user. */
  readonly gate: (userId: string | undefined) => QuotaGate | undefined
  /** Used and left of each of the user's limits, now. */
  readonly usage: (userId: string | undefined) => Effect.Effect<ReadonlyArray<QuotaUsage>, StoreError>
}

export class Quotas extends Context.Tag("aeon/Quotas")<Quotas, Service>() {}

type Metric = QuotaLimit["metric"]

/** A limit without room for what was asked of it (inside the ledger: the caller says it as its own error). */
class NoRoom extends Data.TaggedError("NoRoom")<{ readonly usage: QuotaUsage }> {}
const SPENT = ["cost", "tokens"] as const

/** The ledger's statements for these rules: read a window, and take from every limit of a user at once. */
const ledgerOf = (sql: SqlClient.SqlClient, rules: QuotaRules) => {
  // the windows whose row this process knows committed (rows are never deleted): a statement less per limit and call
  const ensured = new Set<string>()
  const ensure = (user: string, key: string) =>
    ensured.has(`${user}\u0000${key}`) ? Effect.void : sql`INSERT INTO quota_ledger (user_id, window_key)
      VALUES (${user}, ${key}) ON CONFLICT DO NOTHING`
  const used = (user: string, key: string, metric: Metric) =>
    Effect.map(
      sql<{ used: number | string }>`SELECT ${sql(COLUMN[metric])} AS used FROM quota_ledger
          WHERE user_id = ${user} AND window_key = ${key}`,
      (rows) => Number(rows[0]?.used ?? 0)
    )
  /** Adds `x` to the window's figure if it stays within `limit`: whether it did. */
  const addWithin = (user: string, key: string, metric: Metric, x: number, limit: number) =>
    Effect.map(
      sql`UPDATE quota_ledger SET ${sql(COLUMN[metric])} = ${sql(COLUMN[metric])} + ${x}
          WHERE user_id = ${user} AND window_key = ${key} AND ${sql(COLUMN[metric])} + ${x} <= ${limit}
          RETURNING user_id`,
      (rows) => rows.length > 0
    )
  const usageOf = (user: string, now: number) =>
    Effect.forEach(limitsFor(rules, user), (limit) => {
      const w = windowOf(limit.period, now)
      return Effect.map(used(user, w.key, limit.metric), (u): QuotaUsage => ({
        ...limit,
        userId: user,
        used: u,
        left: Math.max(0, limit.amount - u),
        resetsAt: w.resetsAt
      }))
    })
  /** Takes `amounts` from each of the user's limits of those metrics, all or none; the first that has no room. */
  const take = (user: string, amounts: Partial<Record<Metric, number>>) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const windows: Array<string> = []
      for (const limit of limitsFor(rules, user)) {
        const x = amounts[limit.metric]
        if (x === undefined) continue
        const w = windowOf(limit.period, now)
        yield* ensure(user, w.key)
        if (!(yield* addWithin(user, w.key, limit.metric, x, limit.amount))) {
          const left = (yield* usageOf(user, now)).find((u) => u.metric === limit.metric && u.period === limit.period)!
          return yield* new NoRoom({ usage: left })
        }
        windows.push(w.key)
      }
      return [...new Set(windows)]
    }).pipe(
      sql.withTransaction,
      // committed: their rows exist (a rolled-back insert is not remembered)
      Effect.tap((windows) => windows.forEach((key) => ensured.add(`${user}\u0000${key}`)))
    )
  return { usageOf, take }
}

const sqlFailure = storeError("keeping the quota ledger")

/** The gate a run of `user` meets at each call (kernel/BudgetGuard.QuotaGate). */
const gateOf = (sql: SqlClient.SqlClient, ledger: ReturnType<typeof ledgerOf>, user: string): QuotaGate => {
  const { take, usageOf } = ledger
  return {
    reserve: (e) =>
      take(user, { cost: e.maxCostUsd, tokens: e.inputTokens + e.maxOutputTokens }).pipe(
        Effect.map((windows): Reserved => ({
          costUsd: e.maxCostUsd,
          tokens: e.inputTokens + e.maxOutputTokens,
          windows
        })),
        Effect.catchTags({
          NoRoom: (f) =>
            new BudgetExhaustedError({
              dimension: "quota",
              message: `${e.promptId} could cost $${e.maxCostUsd.toFixed(6)} and ${
                e.inputTokens + e.maxOutputTokens
              } tokens; ${describeLeft(f.usage)}`
            }),
          SqlError: (f) => Effect.die(sqlFailure(f))
        })
      ),
    settle: (reserved, actual) => {
      const costUsd = actual.costUsd - reserved.reduce((n, r) => n + r.costUsd, 0)
      const tokens = actual.tokens - reserved.reduce((n, r) => n + r.tokens, 0)
      const windows = [...new Set(reserved.flatMap((r) => r.windows ?? []))]
      return Effect.forEach(
        windows,
        (key) =>
          sql`UPDATE quota_ledger SET cost_usd = cost_usd + ${costUsd}, tokens = tokens + ${tokens}
              WHERE user_id = ${user} AND window_key = ${key}`,
        { discard: true }
      ).pipe(sql.withTransaction, Effect.orDieWith(sqlFailure))
    },
    refusal: (needs) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => usageOf(user, now)).pipe(
        Effect.map((usages) => {
          const short = usages.find((u) =>
            (u.metric === "cost" && needs.costUsd > u.left) || (u.metric === "tokens" && needs.tokens > u.left)
          )
          return short &&
            `the plan is expected to need $${needs.costUsd.toFixed(4)} and ${Math.round(needs.tokens)} tokens; ${
              describeLeft(short)
            }`
        }),
        Effect.orDieWith(sqlFailure)
      )
  }
}

export const make = (rules: QuotaRules) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ledger = ledgerOf(sql, rules)
    const { take, usageOf } = ledger
    const gate = (user: string) => gateOf(sql, ledger, user)
    const userOf = (userId: string | undefined) => userId ?? ANONYMOUS
    return {
      rules,
      admitRun: (userId) => {
        const user = userOf(userId)
        if (limitsFor(rules, user).length === 0) return Effect.void
        return Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          // nothing left of what calls spend: refused before anything is counted
          const spent = (yield* usageOf(user, now)).find((u) => SPENT.some((m) => m === u.metric) && u.left <= 0)
          if (spent) return yield* new NoRoom({ usage: spent })
          yield* take(user, { runs: 1 })
        }).pipe(
          Effect.catchTags({
            NoRoom: (f) =>
              new QuotaExceededError({ userId: user, message: `the run is refused: ${describeLeft(f.usage)}` }),
            SqlError: (f) => Effect.fail(sqlFailure(f))
          })
        )
      },
      gate: (userId) => (limitsFor(rules, userOf(userId)).some((l) => l.metric !== "runs")
        ? gate(userOf(userId))
        : undefined),
      usage: (userId) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => usageOf(userOf(userId), now)).pipe(Effect.mapError(sqlFailure))
    } satisfies Service
  })

const COLUMN: Record<Metric, string> = { cost: "cost_usd", tokens: "tokens", runs: "runs" }

/** AEON_QUOTAS (see domain/Quota.parseQuotas; empty: none), a malformed value refused at start-up naming it. */
export const rulesConfig = Config.string("AEON_QUOTAS").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) =>
    Either.mapLeft(parseQuotas(text), (why) => ConfigError.InvalidData(["AEON_QUOTAS"], `AEON_QUOTAS: ${why}`))
  )
)

export const layer = (rules: QuotaRules = NO_QUOTAS) => Layer.effect(Quotas, make(rules))

export const layerConfig = Layer.effect(Quotas, Effect.flatMap(Effect.orDie(rulesConfig), make))
