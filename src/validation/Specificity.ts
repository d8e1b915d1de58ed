/**
 * Specificity (FR-036): a step says what it acts on — not a weak start, a vague word, a placeholder, or only words that
 * stand for something unsaid.
 */
import { type Found, issue, type PlanLike } from "./Findings.js"
import { words } from "./Words.js"

// ---- specificity (FR-036) --------------------------------------------------------------------

const WEAK_START =
  /^(handle|deal with|do|process|work on|look into|manage|address|take care of|figure out|think about|consider|go over|sort out|try to|make it|improve|fix (it|things|stuff)|finish|proceed)\b/i
const VAGUE =
  /\b(etc\.?|and so on|as needed|as necessary|as appropriate|if needed|something|somehow|stuff|things|whatever|various|misc|some way|appropriately|relevant items?)\b/i
const PLACEHOLDER = /(\bTODO\b|\bTBD\b|\bFIXME\b|\bXXX\b|<[^>]*>|\[[^\]]*\]|\?\?+|\.\.\.|\bplaceholder\b|\blorem\b)/i

/**
 * What a description names rather than says: quoted values, URLs, paths, dotted and file names, identifiers
 * (snake_case, camelCase, kebab-case). A placeholder word inside one is a name (`/docs/todo.txt`, `todo_items`,
 * "TBD"), not a placeholder.
 */
const NAMES = [
  /"[^"]*"|`[^`]*`|(?<=^|[\s(])'[^']*'(?=$|[\s).,;:!?])/g,
  /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi,
  /\b[A-Za-z]:\\\S+/g,
  /(?:~|\.{1,2})?(?:\/[\w.@~-]+)+\/?/g,
  /@?[\w.-]+(?:\/[\w.@~-]+)+/g,
  /\b\w[\w-]*(?:\.\w[\w-]*)+/g,
  /\b\w*_\w*|\b[a-z]+[A-Z]\w*|\b\w+(?:-\w+)+/g
]

/** The description with what it names masked: the words left are the ones that could stand for something unsaid. */
const withoutNames = (description: string) => NAMES.reduce((d, name) => d.replace(name, " NAME "), description)

/** Words that stand for something unnamed, or for the step's own motion, rather than for a thing to act on. */
const EMPTY = new Set(
  ("it them this that these those everything anything something whatever rest remaining remainder left bits bit " +
    "pieces parts part items item stuff things thing needed necessary needful required appropriate appropriately " +
    "better best good properly before usual same again more further other others what whatever go going through " +
    "continue carry keep move get make do take care sort deal handle out up over on off along forward ahead back " +
    "proceed finish finalize complete wrap tidy loose ends done way ways like such").split(" ")
)

/**
 * Whether a step names something to act on: a number, a quoted text, a name, an identifier (file, address, key), or
 * a content word that is neither a stand-in ("the rest", "it") nor the step's own motion ("go through", "sort out").
 */
const namesSomething = (description: string): boolean => {
  if (/\d|["'`][^"'`]+["'`]|[\w-]+\.[a-z]{2,4}\b|@|_/.test(description)) return true
  if (/\s[A-Z][a-z]+/.test(description)) return true // a proper name past the first word
  return words(description).some((w) => !EMPTY.has(w) && w.length > 2)
}

export const specificity = (s: PlanLike["steps"][number]): Array<Found> => {
  const d = s.description.trim()
  const found: Array<Found> = []
  const content = words(d)
  if (PLACEHOLDER.test(withoutNames(d))) {
    found.push(
      issue(
        "specificity",
        "HIGH",
        s.stepId,
        `step ${s.stepId} contains a placeholder: "${d}"`,
        "replace the placeholder with the concrete value"
      )
    )
  } else if (content.length < 2) {
    found.push(
      issue(
        "specificity",
        "MEDIUM",
        s.stepId,
        `step ${s.stepId} names no object to act on: "${d}"`,
        "say what the step acts on"
      )
    )
  } else if (WEAK_START.test(d)) {
    found.push(
      issue(
        "specificity",
        "MEDIUM",
        s.stepId,
        `step ${s.stepId} starts with a weak verb: "${d}"`,
        "use a specific verb and object"
      )
    )
  } else if (!namesSomething(d)) {
    found.push(
      issue(
        "specificity",
        "MEDIUM",
        s.stepId,
        `step ${s.stepId} names no object, value or operation of its own: "${d}"`,
        "say what the step acts on and what it produces"
      )
    )
  } else if (VAGUE.test(d)) {
    found.push(
      issue(
        "specificity",
        "LOW",
        s.stepId,
        `step ${s.stepId} is vague ("${d.match(VAGUE)?.[0] ?? ""}")`,
        "list the concrete items instead"
      )
    )
  }
  return found
}

// ---- relevance (FR-037) ----------------------------------------------------------------------
