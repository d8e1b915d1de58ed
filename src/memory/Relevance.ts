import { termsOf } from "../validation/Words.js"

export { termsOf }

/**
 * How memories are judged relevant, the same on every store: the store's full-text search (SQLite's FTS5 with bm25,
 * PostgreSQL's tsvector with ts_rank) finds and orders the candidates; a candidate is recalled when it holds enough of
 * the query's content words (its coverage), which does not depend on the store's ranking scale.
 */

/** The share of the query's terms the text holds (0 when the query has none). */
export const coverage = (query: string, text: string): number => coverageOf(query, termsOf(text))

/** The share of the query's terms among `held` (a memory's terms as the store indexed them: `indexedTerms`). */
export const coverageOf = (query: string, held: ReadonlyArray<string>): number => {
  const wanted = termsOf(query)
  if (wanted.length === 0) return 0
  const set = new Set(held)
  return wanted.filter((t) => set.has(t)).length / wanted.length
}

/** What the stores index of a memory: the terms of its text and its task, in one line. */
export const indexedTerms = (text: string, task: string) => termsOf(`${text} ${task}`).join(" ")

/** A task as plan reuse compares it: case, spacing and punctuation at its ends aside. */
export const taskKey = (task: string) => task.trim().toLowerCase().replace(/\s+/g, " ").replace(/[\s.!?]+$/, "")

const numbersIn = (text: string) => (text.match(/\d+(?:\.\d+)?/g) ?? []).join(" ")

/**
 * Whether a task is similar enough to an earlier one for its plan to be a start: the same numbers in the same order
 * (a plan's tool inputs carry them), and most content words shared both ways (Jaccard of the stems ≥ `threshold`).
 */
export const similarTasks = (a: string, b: string, threshold: number): boolean => {
  if (numbersIn(a) !== numbersIn(b)) return false
  const x = new Set(termsOf(a))
  const y = new Set(termsOf(b))
  if (x.size === 0 || y.size === 0) return false
  const shared = [...x].filter((t) => y.has(t)).length
  return shared / (x.size + y.size - shared) >= threshold
}

/** A rough token count (4 characters a token): what a note costs the plan prompt. */
export const roughTokens = (text: string) => Math.ceil(text.length / 4)
