import { Options } from "@effect/cli"
import { Option, Predicate } from "effect"

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

/** The option under its wrappers (a default, a map, optional, repeated): the one that names a flag and its type. */
const singleOf = (o: unknown, depth = 0): unknown => {
  if (depth > 8 || !Predicate.isRecord(o)) return undefined
  if (o._tag === "Single") return o
  for (const key of ["options", "argumentOption", "left"]) {
    const inner = singleOf(o[key], depth + 1)
    if (inner !== undefined) return inner
  }
  return undefined
}

/** The flags of a command's configuration that take a value (all but the true-or-false ones). */
export const valueFlagNames = (config: Record<string, unknown>): Array<string> =>
  Object.values(config).flatMap((v) => {
    if (!Options.isOptions(v)) return []
    const single = singleOf(v)
    const bool = Predicate.isRecord(single) && Predicate.isRecord(single.primitiveType) &&
      single.primitiveType._tag === "Bool"
    return single === undefined || bool ? [] : flagNames({ v })
  })

/**
 * A flag given without its value (the last word, or another flag after it), named: @effect/cli would say "unknown
 * argument", or take nothing and go on.
 */
export const missingValue = (
  command: string,
  args: ReadonlyArray<string>,
  valued: ReadonlyArray<string>
): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") return undefined
    const name = /^--([\w-]+)$/.exec(arg)?.[1]
    if (name === undefined || !valued.includes(name)) continue
    const next = args[i + 1]
    if (next === undefined || (next.startsWith("-") && !/^-\d/.test(next))) {
      return `aeon ${command}: --${name} needs a value (aeon ${command} --help says what it takes)`
    }
  }
  return undefined
}

/** Each flag's choices, as @effect/cli takes them: a value is read in any case (`--mode FULL`, `--status converged`). */
export const choicesOf = new Map<string, ReadonlyArray<string>>()
/** A flag of a few values, its choices noted for the case rule (`canonicalChoices`). */
export const choice = <A extends string>(flag: string, values: ReadonlyArray<A>) => {
  choicesOf.set(flag, [...new Set([...(choicesOf.get(flag) ?? []), ...values])])
  return Options.choice(flag, values)
}

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

/**
 * The command line with each choice flag's value written as its choice is (`--mode FULL` → `--mode full`,
 * `--status converged` → `--status CONVERGED`): enum values in any case, as GraphQL's words are read.
 */
export const canonicalChoices = (
  argv: ReadonlyArray<string>,
  choices: ReadonlyMap<string, ReadonlyArray<string>>
): Array<string> => {
  const canonical = (flag: string, value: string) =>
    choices.get(flag)?.find((c) => c.toLowerCase() === value.toLowerCase()) ?? value
  return argv.map((arg, i) => {
    const joined = /^--([\w-]+)=(.*)$/.exec(arg)
    if (joined) return `--${joined[1]}=${canonical(joined[1]!, joined[2]!)}`
    const flag = /^--([\w-]+)$/.exec(argv[i - 1] ?? "")?.[1]
    return flag !== undefined && !arg.startsWith("-") ? canonical(flag, arg) : arg
  })
}

/**
 * A task written without quotes (`aeon run What is 6 * 7`): the shell splits it into words, and the command takes one
 * task. Said, with the line to write instead.
 */
export const unquotedTask = (
  command: string,
  args: ReadonlyArray<string>,
  valued: ReadonlyArray<string>
): string | undefined => {
  const words: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    const name = /^--?([\w-]+)$/.exec(arg)?.[1]
    if (name !== undefined && !/^-\d/.test(arg)) {
      if (valued.includes(name)) i++
      continue
    }
    if (!arg.startsWith("-") || /^-\d/.test(arg)) words.push(arg)
  }
  return words.length > 1
    ? `aeon ${command}: the task is one argument: quote it (aeon ${command} "${words.join(" ")}")`
    : undefined
}
