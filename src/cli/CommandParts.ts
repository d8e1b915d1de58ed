import { Options } from "@effect/cli"
import { Effect } from "effect"
import { flagNames, valueFlagNames } from "./Flags.js"

/** What every command of `aeon` shares: its handlers loaded on demand, its flags noted, the common flags. */

/** What the commands do (cli/Handlers), loaded only once a command runs. */
export const handlers = Effect.promise(() => import("./Handlers.js"))
export const handle = (f: (h: typeof import("./Handlers.js")) => Effect.Effect<void, unknown>) =>
  Effect.flatMap(handlers, (h) => f(h).pipe(Effect.catchAllCause(h.report)))

/** Each command's flags, for the unknown-flag check (cli/Flags). */
export const flagsOf = new Map<string, Array<string>>()
/** Each command's flags that take a value (one given without it is named: cli/Flags `missingValue`). */
export const valueFlagsOf = new Map<string, Array<string>>()
/** A command's configuration, its flags noted. */
export const noted = <C extends Record<string, unknown>>(name: string, config: C): C => {
  flagsOf.set(name, [...new Set([...(flagsOf.get(name) ?? []), ...flagNames(config)])])
  valueFlagsOf.set(name, [...new Set([...(valueFlagsOf.get(name) ?? []), ...valueFlagNames(config)])])
  return config
}

/** Each command's subcommands by name, for the unknown-subcommand check (@effect/cli lists the top-level ones). */
export const subcommandsOf = new Map<string, ReadonlyArray<string>>()
/** A command's subcommands' names, noted (they are the names its Command.make calls give). */
export const noteSubcommands = (name: string, names: ReadonlyArray<string>) => void subcommandsOf.set(name, names)

export const mcpOption = Options.text("mcp").pipe(
  Options.withDescription(
    "a JSON file with mcpServers (Claude Desktop's format): their tools join the built-in ones (env AEON_MCP_CONFIG)"
  ),
  Options.optional
)

export const json = Options.boolean("json").pipe(Options.withDescription("print the result as one JSON document"))

export const store = "runs are read from env AEON_DATABASE_URL, else the embedded store in env AEON_DATA_DIR"
