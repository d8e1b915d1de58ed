import { memoize } from "../support/Memoize.js"

const STOP = new Set(
  ("a an the of to in on for with and or by from at as is are be it this that these those its their " +
    "then into using use via all any each per our your my his her them they we you i so if than").split(" ")
)

/** The content words of a text, lower case (stop words and one-letter words out; numbers kept). */
// remembered: a plan is validated again on every pass with mostly the same texts
export const words = memoize((text: string): ReadonlyArray<string> =>
  text.toLowerCase().replace(/[^a-z0-9\s]/g, " ").split(/\s+/).filter((w) =>
    (w.length > 1 || /\d/.test(w)) && !STOP.has(w)
  )
)

const SUFFIXES = ["ations", "ation", "ings", "ing", "edly", "ies", "ied", "ed", "es", "ly", "s", "e"]

/**
 * A light stem: "computes", "computed", "computing" → "comput"; "sales" → "sale"; a stem keeps at least four
 * letters, so short words stay apart ("notes" → "note", never "not").
 */
export const stem = memoize((w: string): string => {
  if (w.length <= 4 || /\d/.test(w)) return w
  for (const suffix of SUFFIXES) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 4) {
      const base = w.slice(0, -suffix.length)
      return suffix === "ies" || suffix === "ied"
        ? `${base}y`
        : base.endsWith("e") && base.length > 4
        ? base.slice(0, -1)
        : base
    }
  }
  return w
})

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
