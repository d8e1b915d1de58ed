import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { documentation } from "../support/docs.js"

/**
 * The README's command blocks marked `<!-- readme-check -->`: each `$ aeon …` line is run with the built CLI on
 * the offline default, in a data directory of the block's own, and every line the README shows after it must be in
 * what it prints. Run ids, durations, dates and counts of three digits or more are masked on both sides (they differ
 * from run to run); a line ending with … is a prefix; a line that is only … stands for lines left out. An id in a
 * command is the id the block's previous command printed.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
const AN_ID = new RegExp(UUID.source)
const normalize = (line: string) =>
  line.replace(UUID, "<id>")
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, "<date>")
    .replace(/\d+(?:\.\d+)?s\b/g, "<time>")
    .replace(/\b\d{3,}\b/g, "<n>")
    .replace(/\s+/g, " ")
    .trim()

interface Command {
  readonly args: Array<string>
  readonly expected: Array<string>
}

/** The marked blocks, each as its commands and the lines shown after each. */
const markedBlocks = (readme: string): Array<Array<Command>> =>
  [...readme.matchAll(/<!-- readme-check -->\n```[a-z]*\n([\s\S]*?)\n```/g)].map((m) => {
    const commands: Array<Command> = []
    for (const line of m[1]!.split("\n")) {
      const command = line.match(/^\$ (?:aeon|\.\/bin\/aeon\.mjs) (.*)$/)
      if (command) commands.push({ args: argsOf(command[1]!), expected: [] })
      else commands.at(-1)?.expected.push(line)
    }
    return commands
  })

/** A command line's words, quotes removed ("…" and '…' keep their spaces). */
const argsOf = (line: string) => [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!)

const readme = readFileSync("README.md", "utf8")
// the marked blocks of the README and of docs/ (where the CLI's depth went)
const blocks = markedBlocks(documentation())

describe("the README's marked command blocks print what they show (#42 item 5)", () => {
  it("there are marked blocks, the quick start's among them", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2)
    const quickStart = readme.indexOf("## Quick start")
    expect(readme.indexOf("<!-- readme-check -->", quickStart)).toBeLessThan(readme.indexOf("\n## ", quickStart + 5))
  })

  blocks.forEach((commands, i) => {
    it(`block ${i + 1}: ${commands.map((c) => `aeon ${c.args.join(" ")}`).join("; ")}`, async () => {
      const { aeon } = cliIn("aeon-readme-")
      let lastId: string | undefined
      for (const command of commands) {
        const args = command.args.map((a) => (AN_ID.test(a) && lastId ? a.replace(UUID, lastId) : a))
        const r = await aeon(...args)
        const printed = (r.stdout + r.stderr).split("\n").map(normalize)
        for (const shown of command.expected.map(normalize).filter((l) => l !== "" && l !== "…")) {
          const found = shown.endsWith("…")
            ? printed.some((p) => p.startsWith(shown.slice(0, -1).trimEnd()))
            : printed.includes(shown)
          expect(found, `aeon ${args.join(" ")} prints "${shown}"; it printed:\n${printed.join("\n")}`).toBe(true)
        }
        lastId = (r.stdout.match(UUID) ?? []).at(-1) ?? lastId
      }
    }, 120_000)
  })
})
