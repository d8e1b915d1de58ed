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
    error: (...args: ReadonlyArray<unknown>) => base.error(...err(args))
  } as Console.Console))
}))
