import { memoize, memoizeWeak } from "../support/Memoize.js"
import type { ToolInfo } from "./ToolInfo.js"
import { stem, words } from "./Words.js"

/**
 * Kinds of action, each with the verbs (and action nouns) that ask for it. This is English, not a list of tools: a
 * tool's kinds are read from its own name and description, a step's from the verb its description starts with, so
 * a user's tool described only by its description is judged like a built-in one.
 */
const KINDS: Record<string, ReadonlyArray<string>> = {
  compute: [
    "compute",
    "calculate",
    "calculation",
    "evaluate",
    "arithmetic",
    "add",
    "sum",
    "multiply",
    "divide",
    "subtract",
    "average",
    "count",
    "square",
    "double",
    "halve",
    "work out",
    "percentage",
    "math"
  ],
  store: ["store", "save", "write", "remember", "persist", "keep", "put"],
  retrieve: [
    "read",
    "retrieve",
    "recall",
    "load",
    "get",
    "fetch",
    "look up",
    "lookup",
    "find",
    "search",
    "query",
    "look for",
    "browse",
    "return"
  ],
  send: ["send", "email", "mail", "notify", "message", "post", "forward", "deliver", "reply", "remind"],
  convert: ["convert", "exchange", "conversion"],
  translate: ["translate", "translation"],
  schedule: ["book", "schedule", "arrange", "reserve", "invite", "meeting", "set up"],
  create: ["create", "draft", "generate", "produce"],
  forecast: ["forecast", "weather"],
  time: ["clock", "time", "date", "now", "today", "timestamp"],
  // checking fits any tool that returns something to check: never a mismatch on its own
  verify: ["double check", "check", "verify", "review", "confirm", "validate"]
}
/**
 * Kinds an arithmetic expression can carry out: converting a rate, a unit or a currency at a stated rate is
 * computation. A step asking for one, given a computing tool an expression, computes (DeterministicChecks' do/say).
 */
export const NUMERIC_KINDS: ReadonlySet<string> = new Set(["convert"])
/** Kinds too general to say a tool does the wrong thing. */
export const WEAK_KINDS: ReadonlySet<string> = new Set(["verify"])

const byStem = new Map<string, string>()
const phrases: Array<[string, string]> = []
for (const [kind, verbs] of Object.entries(KINDS)) {
  for (const v of verbs) {
    if (v.includes(" ")) phrases.push([v, kind])
    else if (!byStem.has(stem(v))) byStem.set(stem(v), kind)
  }
}

/**
 * The kind an action word names: by its stem, or for a short word its bare form ("gets", "adds", "puts": the stem keeps
 * words of four letters whole).
 */
const kindOf = (w: string) =>
  byStem.get(stem(w)) ?? (w.length <= 4 && w.endsWith("s") ? byStem.get(w.slice(0, -1)) : undefined)

/** Words that begin a step without saying what it does. */
const PREFIX = new Set(["first", "then", "next", "finally", "please", "now", "also", "again"])

/** The kind of action a step's description asks for: the first action word it starts with (undefined: none known). */
export const stepAction = memoize((description: string): string | undefined => {
  const text = description.toLowerCase().replace(/-/g, " ").trim()
  for (const [phrase, kind] of phrases) if (text.startsWith(phrase)) return kind
  const ws = words(text).filter((w) => !PREFIX.has(w))
  const [first] = ws
  return first === undefined ? undefined : kindOf(first)
})

/** The kinds of action a tool does, from its name and description. */
export const toolActions = memoizeWeak((tool: ToolInfo): ReadonlySet<string> => {
  const text = `${tool.name.replace(/[._-]/g, " ")} ${tool.description}`.toLowerCase().replace(/-/g, " ")
  const found = new Set<string>()
  for (const [phrase, kind] of phrases) if (text.includes(phrase)) found.add(kind)
  for (const w of words(text)) {
    const kind = kindOf(w)
    if (kind) found.add(kind)
  }
  return found
})

/** The stems of what a tool's name and description talk about. */
export const toolWords = memoizeWeak((tool: ToolInfo): ReadonlySet<string> =>
  new Set(
    (tool.keywords ?? [...tool.name.split(/[._-]/), ...words(tool.description)]).map((w) => stem(w.toLowerCase()))
  )
)

/** How well a tool fits a step: 2 when it does the kind of action asked, plus the words they share. */
export const fit = (description: string, tool: ToolInfo, kind = stepAction(description)): number => {
  const own = toolWords(tool)
  const shared = new Set(words(description).map(stem).filter((w) => own.has(w))).size
  return (kind !== undefined && toolActions(tool).has(kind) ? 2 : 0) + shared
}
