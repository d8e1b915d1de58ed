import { termsOf } from "../validation/Words.js"

export { termsOf }

/**
 * How memories are judged relevant, the same on every store: the store's full-text search (SQLite's FTS5 with bm25,
 * PostgreSQL's tsvector with ts_rank) finds and orders the candidates; a candidate is recalled when it holds enough of
 * the query's content words (its coverage), which does not depend on the store's ranking scale.
 */

/** The share of the query's terms the text holds (0 when the query has none). */
export const coverage = (query: string, text: string): number => coverageOf(query, termsOf(text))

/**
 * The share of the query that `held` covers (a memory's terms as the store indexed them: `indexedTerms`), each term
 * weighed by how much it says: a word of what the task is about counts whole, a word of arithmetic or of handling
 * data ("multiply", "sum", "count") a quarter. And a memory covers nothing unless what it shares says something: a
 * word of what the task is about, two of its numbers, or one long number (a year, an id) — "Compute 2 + 3" is not
 * covered by a memory that happens to hold a 3.
 */
export const coverageOf = (query: string, held: ReadonlyArray<string>): number => {
  const wanted = termsOf(query)
  if (wanted.length === 0) return 0
  const set = new Set(held)
  const shared = wanted.filter((t) => set.has(t))
  if (!saysSomething(shared)) return 0
  const weigh = (terms: ReadonlyArray<string>) => terms.reduce((sum, t) => sum + (GENERIC.has(t) ? 0.25 : 1), 0)
  return weigh(shared) / weigh(wanted)
}

const isNumber = (t: string) => /^\d/.test(t)

/** Whether shared terms tell which task it is: a word of its subject, two numbers, or a number of 3 digits or more. */
const saysSomething = (shared: ReadonlyArray<string>) => {
  const numbers = shared.filter(isNumber)
  return shared.some((t) => !isNumber(t) && !GENERIC.has(t)) || numbers.length >= 2 ||
    numbers.some((n) => n.length >= 3)
}

/** Words of arithmetic and of handling data: shared by tasks about anything (as stems, as termsOf gives them). */
const GENERIC = new Set(
  termsOf(
    "add adding sum total plus multiply multiplied times product divide divided quotient subtract minus difference " +
      "convert compare check count average round percent percentage number numbers square root power"
  )
)

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
