import { Either } from "effect"
import { isOneOf } from "../support/OneOf.js"

/** What a quota bounds: USD spent on model calls, tokens, runs started. */
const METRICS = ["cost", "tokens", "runs"] as const
export type QuotaMetric = (typeof METRICS)[number]
/** The window a quota counts in: a UTC day or a UTC month. */
const PERIODS = ["day", "month"] as const
export type QuotaPeriod = (typeof PERIODS)[number]

export interface QuotaLimit {
  readonly metric: QuotaMetric
  readonly amount: number
  readonly period: QuotaPeriod
}

/** AEON_QUOTAS parsed: each named user's limits, and `*`'s (each user's, where the user has none of its own). */
export interface QuotaRules {
  readonly users: Readonly<Record<string, ReadonlyArray<QuotaLimit>>>
  readonly everyone: ReadonlyArray<QuotaLimit>
}

export const NO_QUOTAS: QuotaRules = { users: {}, everyone: [] }

/** The user a run without one is counted as (quotas apply to it as to each user). */
export const ANONYMOUS = "-"

const LIMIT = /^(cost|tokens|runs)\s*=\s*(\d+(?:\.\d+)?)\s*\/\s*(day|month)$/

/**
 * `alice:cost=5/day,tokens=2000000/month;*:runs=100/day` — entries by `;`, each a user (or `*`) and its limits by
 * `,`: metric (cost in USD, tokens, runs) = amount / period (day or month, UTC). Empty: no quotas. A malformed entry
 * is refused with what is wrong and where.
 */
export const parseQuotas = (text: string): Either.Either<QuotaRules, string> => {
  const users: Record<string, Array<QuotaLimit>> = {}
  for (const entry of text.split(";").map((e) => e.trim()).filter((e) => e !== "")) {
    const colon = entry.indexOf(":")
    const user = entry.slice(0, colon).trim()
    if (colon < 0 || user === "") return Either.left(`"${entry}": expected USER:LIMIT[,LIMIT…] (or *:LIMIT…)`)
    if (users[user]) return Either.left(`"${user}" is given twice`)
    const limits: Array<QuotaLimit> = []
    for (const part of entry.slice(colon + 1).split(",").map((p) => p.trim())) {
      const m = part.match(LIMIT)
      if (!m) return Either.left(`"${part}" (for ${user}): expected cost=USD/day, tokens=N/month or runs=N/day`)
      const [, metric = "", amount, period = ""] = m
      if (!isOneOf(METRICS, metric) || !isOneOf(PERIODS, period)) return Either.left(`"${part}": not a quota`)
      const limit = { metric, amount: Number(amount), period }
      if (limit.metric !== "cost" && !Number.isInteger(limit.amount)) {
        return Either.left(`"${part}" (for ${user}): ${limit.metric} is a whole number`)
      }
      if (limits.some((l) => l.metric === limit.metric && l.period === limit.period)) {
        return Either.left(`"${part}" (for ${user}): ${limit.metric} per ${limit.period} is given twice`)
      }
      limits.push(limit)
    }
    users[user] = limits
  }
  const { "*": everyone = [], ...named } = users
  return Either.right({ users: named, everyone })
}

/** The limits a user is held to: its own, and `*`'s for each metric and period it has none of its own for. */
export const limitsFor = (rules: QuotaRules, userId: string): ReadonlyArray<QuotaLimit> => {
  const own = rules.users[userId] ?? []
  return [...own, ...rules.everyone.filter((l) => !own.some((o) => o.metric === l.metric && o.period === l.period))]
}

/** The window `now` falls in: its ledger key (`day:2026-11-25`, `month:2026-11`) and when the next one begins. */
export const windowOf = (period: QuotaPeriod, now: number): { readonly key: string; readonly resetsAt: number } => {
  const d = new Date(now)
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()]
  return period === "day"
    ? { key: `day:${d.toISOString().slice(0, 10)}`, resetsAt: Date.UTC(y, m, day + 1) }
    : { key: `month:${d.toISOString().slice(0, 7)}`, resetsAt: Date.UTC(y, m + 1, 1) }
}

/** What a user has used and has left of one limit, now. */
export interface QuotaUsage extends QuotaLimit {
  readonly userId: string
  readonly used: number
  readonly left: number
  readonly resetsAt: number
}

const unit = (metric: QuotaMetric, n: number) => metric === "cost" ? `$${n.toFixed(4)}` : `${Math.round(n)} ${metric}`

/** "alice has $0.0123 of her $5.0000 per day left (resets 2026-11-26T00:00:00.000Z)". */
export const describeLeft = (u: QuotaUsage) =>
  `${u.userId === ANONYMOUS ? "runs without a user have" : `${u.userId} has`} ${unit(u.metric, u.left)} of ${
    unit(u.metric, u.amount)
  } per ${u.period} left (resets ${new Date(u.resetsAt).toISOString()})`
