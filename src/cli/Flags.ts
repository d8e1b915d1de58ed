import { Options } from "@effect/cli"
import { Option } from "effect"

/**
 * What the CLI adds to @effect/cli's parsing and help: an unknown flag named wherever it stands (with the nearest
 * known one), and a help page of one line per flag saying what it does.
 */

/** The flags every command takes (@effect/cli's own). */
const BUILT_IN = ["help", "h", "version", "wizard", "completions", "log-level"]

/** The flag names of a command's configuration (its Options; its Args are not flags). */
export const flagNames = (config: Record<string, unknown>): Array<string> =>
  Object.values(config).flatMap((v) =>
    Options.isOptions(v)
      ? Option.match(Options.getIdentifier(v), { onNone: () => [], onSome: (id) => [id.replace(/^-+/, "")] })
      : []
  )

/** Edit distance (insertions, deletions, substitutions) between two short strings. */
const distance = (a: string, b: string): number => {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const before = row
    const next = [i]
    for (let j = 1; j <= b.length; j++) {
      const at = (r: ReadonlyArray<number>, k: number) => r[k] ?? Infinity
      next[j] = Math.min(at(before, j) + 1, at(next, j - 1) + 1, at(before, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    row = next
  }
  return row[b.length] ?? Math.max(a.length, b.length)
}

/** The known flag nearest `name`, when one is near enough to be what was meant. */
export const nearest = (name: string, known: ReadonlyArray<string>): string | undefined => {
  const scored = known.map((k) => ({ k, d: k.startsWith(name) || name.startsWith(k) ? 1 : distance(name, k) }))
    .sort((x, y) => x.d - y.d)
  const best = scored[0]
  return best && best.d <= Math.max(2, Math.floor(name.length / 3)) ? best.k : undefined
}

/**
 * The first flag of `args` (what follows the command's name) that the command does not take, in words with the
 * nearest known flag; undefined when every flag is known. Stops at `--` (what follows is not a flag).
 */
export const unknownFlag = (
  command: string,
  args: ReadonlyArray<string>,
  known: ReadonlyArray<string>
): string | undefined => {
  const all = [...known, ...BUILT_IN]
  for (const arg of args) {
    if (arg === "--") return undefined
    const name = /^--?([^=]+)/.exec(arg)?.[1]
    if (name === undefined || /^-\d/.test(arg)) continue
    if (all.includes(name)) continue
    const near = nearest(name, known)
    return `aeon ${command}: unknown flag ${arg.split("=")[0]}${near ? ` (did you mean --${near}?)` : ""}; ` +
      `aeon ${command} --help lists its flags`
  }
  return undefined
}

/** What @effect/cli says of every option besides its description: the value's type, that it is optional. */
const BOILERPLATE = [
  /^A user-defined piece of text\.$/,
  /^A true or false value\.$/,
  /^An integer\.$/,
  /^A floating point number\.$/,
  /^A date without a time-zone/,
  /^One of the following: /,
  /^This setting is optional\.$/,
  /^This setting is a property argument/
]

/**
 * A help page as a person reads it on one screen: the usage line with its flags folded into `[flags]`, each flag on
 * one line with what it does (the value's type and "This setting is optional." dropped). Text that is not a help
 * page (no OPTIONS section) is returned as it is.
 */
export const compactHelp = (text: string): string => {
  if (!/^OPTIONS$/m.test(text) || !/^USAGE$/m.test(text)) return text
  const lines = text.split("\n")
  const out: Array<string> = []
  let section = ""
  let entry: { head: string; words: Array<string> } | undefined
  const flush = () => {
    if (entry) out.push(`  ${entry.head.padEnd(28)} ${entry.words.join(" ")}`.trimEnd())
    entry = undefined
  }
  for (const line of lines) {
    if (/^[A-Z][A-Z ]+$/.test(line)) {
      flush()
      section = line
      if (out.length > 0 && out.at(-1) !== "") out.push("")
      out.push(line)
      continue
    }
    if (section !== "OPTIONS" && section !== "ARGUMENTS") {
      // a usage line (the command's, or each subcommand's in the list): its flags folded, the arguments kept
      out.push(
        section === "USAGE" || /^\s+- /.test(line)
          ? line.replace(/ ?\[--?[^\]]*\]/g, "").replace(/ --[\w-]+ \w+\.\.\./g, "").replace(
            /^(\$ \S+|aeon \S+|\s+- \S+)/,
            "$1 [flags]"
          )
          : line
      )
      continue
    }
    if (line.trim() === "") continue
    if (!/^\s/.test(line)) {
      flush()
      entry = { head: line, words: [] }
    } else if (entry && !BOILERPLATE.some((b) => b.test(line.trim()))) {
      entry.words.push(line.trim())
    }
  }
  flush()
  return out.join("\n").replace(/\n{3,}/g, "\n\n")
}
