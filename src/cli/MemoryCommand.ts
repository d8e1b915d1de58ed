import { Args, Command, Options } from "@effect/cli"
import { Option } from "effect"
import { handle, json, noted, noteSubcommands, store } from "./CommandParts.js"

/** `aeon memory list|search|forget`: a user's memories across runs (the handlers: cli/Handlers). */

const user = Options.text("user").pipe(
  Options.withDescription("whose memories (default: those of runs without a user)"),
  Options.optional
)
const limit = Options.integer("limit").pipe(Options.withDescription("most memories listed"), Options.withDefault(20))

// the subcommands' flags are noted under `memory`, the name the unknown-flag check sees first
const list = Command.make(
  "list",
  noted("memory", { user, limit, json }),
  (o) => handle((h) => h.memoryList({ ...o, query: Option.none() }))
).pipe(Command.withDescription("a user's memories, newest first: what each says and the run it came from"))

const search = Command.make(
  "search",
  noted("memory", {
    query: Args.text({ name: "query" }).pipe(Args.withDescription("words to find (full-text search)")),
    user,
    limit,
    json
  }),
  (o) => handle((h) => h.memoryList({ ...o, query: Option.some(o.query) }))
).pipe(Command.withDescription("a user's memories matching the words, best first, with how much of them each holds"))

const forget = Command.make(
  "forget",
  noted("memory", {
    id: Args.text({ name: "id" }).pipe(
      Args.withDescription("the memory's id (aeon memory list shows it)"),
      Args.optional
    ),
    all: Options.boolean("all").pipe(Options.withDescription("forget every memory of the user (erasure)")),
    user
  }),
  (o) => handle((h) => h.memoryForget(o))
).pipe(Command.withDescription("forget one memory, or --all of a user's"))

noteSubcommands("memory", ["list", "search", "forget"])

export const memoryCommand = Command.make("memory").pipe(
  Command.withDescription(
    `memory across runs: what converged runs established and the notes models kept (${store}; env AEON_MEMORY)`
  ),
  Command.withSubcommands([list, search, forget])
)
