import { Console, Effect, Layer } from "effect"
import { compactHelp } from "./Flags.js"

const SGR = "\u001b\\[[0-9;]*m" // a colour or style escape
const ANSI = new RegExp(SGR, "g")
const USAGE = new RegExp(`^((?:${SGR})*)\\$ (?:aeon\\b ?)?`, "gm")

/**
 * What @effect/cli prints (help, usage errors, version) as a person reading `aeon …` expects it: usage lines read
 * `aeon run …` instead of `$ run …`, no trailing padding, and no escape codes unless stdout (or stderr, for errors)
 * is a terminal and NO_COLOR is unset.
 */
export const tidy = (text: string, colour: boolean): string => {
  // a help page is folded to a line per flag, in plain text
  const help = /^OPTIONS$/m.test(text.replace(ANSI, ""))
  const plain = colour && !help ? text : compactHelp(text.replace(ANSI, ""))
  return plain
    .replace(USAGE, "$1aeon ")
    .replace(/[ \t]+$/gm, "")
    // the command list pads every usage to the longest one: each command's description goes on its own line
    .replace(/^(\s*- .*?\S) {2,}(\S)/gm, "$1\n      $2")
}

/** The flags of the command line with the value each was given (`--flag value` or `--flag=value`). */
const givenFlags = (argv: ReadonlyArray<string>) =>
  argv.flatMap((arg, i) => {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(arg)
    if (!m) return []
    const value = m[2] ?? argv[i + 1]
    return value === undefined || (m[2] === undefined && value.startsWith("--")) ? [] : [{ flag: m[1]!, value }]
  })

/**
 * A refusal of a flag's value as @effect/cli words it ("'abc' is not a integer", "Expected one of the following
 * cases: auto, simple, full"), said as the CLI's other errors are: `aeon: --flag: what is wrong`, naming the flag
 * whose value it is. Other text is left as it is.
 */
export const flagValueError = (text: string, argv: ReadonlyArray<string>): string | undefined => {
  const plain = text.replace(ANSI, "").trim()
  const typed = /^'(.*)' is not an? (\w+(?: \w+)*)$/.exec(plain)
  const cases = /^Expected one of the following cases: (.*)$/.exec(plain)
  if (!typed && !cases) return undefined
  const given = givenFlags(argv)
  const choices = cases?.[1]!.split(", ") ?? []
  const culprit = typed
    ? given.find((g) => g.value === typed[1])
    : given.find((g) => !choices.includes(g.value) && !/^-?\d/.test(g.value))
  const what = typed
    ? `'${typed[1]}' is not ${
      typed[2] === "float" ? "a number" : `${/^[aeiou]/.test(typed[2]!) ? "an" : "a"} ${typed[2]}`
    }`
    : `expected one of ${choices.join(", ")}${culprit ? ` (got '${culprit.value}')` : ""}`
  return `aeon: ${culprit ? `--${culprit.flag}: ` : ""}${what}`
}

const colourOn = (stream: NodeJS.WriteStream) =>
  !("NO_COLOR" in process.env) && ("FORCE_COLOR" in process.env || stream.isTTY === true)

const tidied = (colour: boolean) => (args: ReadonlyArray<unknown>) =>
  args.map((a) => (typeof a === "string" ? tidy(a, colour) : a))

/** The CLI's Console: the default one, with what it logs tidied. */
export const layer = Layer.unwrapEffect(Console.consoleWith((base) => {
  const out = tidied(colourOn(process.stdout))
  const err = tidied(colourOn(process.stderr))
  return Effect.succeed(Console.setConsole({
    ...base,
    log: (...args: ReadonlyArray<unknown>) => base.log(...out(args)),
    error: (...args: ReadonlyArray<unknown>) => {
      const refused = args.length === 1 && typeof args[0] === "string"
        ? flagValueError(args[0], process.argv.slice(2))
        : undefined
      return refused !== undefined ? base.error(refused) : base.error(...err(args))
    }
  } as Console.Console))
}))
