import { ParseResult } from "effect"

/**
 * A decode's faults on one line, each with its path: "budget.ttl: ttl must be a positive integer (was -1); task: task
 * must not be empty" — the run input's, a guardrails file's, a policy file's. `limit`: the first so many.
 */
export const formatIssues = (e: ParseResult.ParseError, limit = Number.POSITIVE_INFINITY): string =>
  ParseResult.ArrayFormatter.formatErrorSync(e)
    // an optional field's "or absent" branch adds nothing to the real reason
    .filter((i, _, all) => !(i.message.startsWith("Expected undefined") && all.length > 1))
    .slice(0, limit)
    .map((i) => `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.message}`)
    .join("; ")
