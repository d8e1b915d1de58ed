import { stem, words } from "../validation/Words.js"

/**
 * How memories are judged relevant, the same on every store: the store's full-text search (SQLite's FTS5 with bm25,
 * PostgreSQL's tsvector with ts_rank) finds and orders the candidates; a candidate is recalled when it holds enough of
 * the query's content words (its coverage), which does not depend on the store's ranking scale.
 */

/** Words of a request that say how it is asked, not what about: they neither find nor weigh a memory. */
const ASKING = new Set(
  ("what which who whom whose when where why how does do did was were has have had can could should would will " +
    "please tell me about give find show is are").split(" ")
)

/**
 * Words that say what to do with a task, not what it is about ("Compute 12", "Explain the result"): a memory holding
 * only them does not cover the task (every arithmetic answer shared "comput" with every arithmetic task). As stems.
 */
const DOING = new Set(
  ("compute calculate find determine explain state write list work out get return answer result value say use step " +
    "then")
    .split(" ").map(stem)
)

/** The content words of a text as stems, once each (question words and words of doing aside). */
export const termsOf = (text: string): ReadonlyArray<string> => [
  ...new Set(words(text).filter((w) => !ASKING.has(w)).map(stem).filter((t) => !DOING.has(t)))
]

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
