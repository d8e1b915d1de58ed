import { Args, Command, Options } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Option } from "effect"
import { RUN_STATUSES } from "../domain/RunStatus.js"
import { version } from "../support/PackageFiles.js"
import { agentsCommand } from "./AgentsCommand.js"
import {
  flagsOf,
  handle,
  handlers,
  json,
  mcpOption,
  noted,
  store,
  subcommandsOf,
  valueFlagsOf
} from "./CommandParts.js"
import { approveCommand, cancelCommand, forgetCommand, guideCommand, runIdArg } from "./ControlCommands.js"
import { canonicalChoices, choice, choicesOf, missingValue, nearest, unknownFlag, unquotedTask } from "./Flags.js"
import { forkCommand, modelOptions, replayCommand } from "./ForkCommands.js"
import * as HelpConsole from "./HelpConsole.js"
import { memoryCommand } from "./MemoryCommand.js"
import { chatInputOptions, runInputOptions } from "./RunFlags.js"
import { schedulesCommand } from "./SchedulesCommand.js"

/**
 * The `aeon` command: its commands and flags. What a command does lives in Handlers (and the server in
 * launch/Start), loaded only when that command runs, so `aeon --help` loads neither the engine nor the store.
 */

const runCommand = Command.make(
  "run",
  noted("run", {
    task: Args.text({ name: "task" }).pipe(Args.withDescription("what to do"), Args.optional),
    resume: Options.text("resume").pipe(
      Options.withDescription("go on with a run that stopped (waiting for approval, or cut off) instead of a new task"),
      Options.optional
    ),
    full: Options.boolean("full").pipe(Options.withDescription("multi-pass from the start (same as --mode full)")),
    criteria: Options.text("criteria").pipe(
      Options.withDescription("convergence criteria as a JSON file"),
      Options.optional
    ),
    files: Options.text("file").pipe(
      Options.withDescription("a file or an image for the task (png, jpeg, gif, webp, pdf, txt, md); repeat for more"),
      Options.repeated
    ),
    outputSchemaFile: Options.text("output-schema").pipe(
      Options.withDescription(
        "a JSON Schema file the answer must meet: its value is printed as JSON (--json: .finalAnswer.data)"
      ),
      Options.optional
    ),
    guardrailsFile: Options.text("guardrails").pipe(
      Options.withDescription(
        "a JSON file of more guardrails for this run (input, tool_call, tool_result, output): added to AEON_GUARDRAILS'"
      ),
      Options.optional
    ),
    ...runInputOptions,
    ...modelOptions,
    mcp: mcpOption,
    json
  }),
  (o) => handle((h) => h.run(o))
).pipe(
  Command.withDescription(
    "plan, execute, validate and refine a task until it converges or a budget runs out (exit 0 converged, 1 failed, 2 not converged, 3 waiting for approval)"
  )
)

const inspectCommand = Command.make(
  "inspect",
  noted("inspect", {
    runId: runIdArg,
    json,
    calls: Options.boolean("calls").pipe(
      Options.withDescription("the run's model calls: each prompt and answer as recorded (env AEON_RECORD_PROMPTS)")
    ),
    events: Options.boolean("events").pipe(
      Options.withDescription("the run's events, a line each with its seq (what aeon fork --at takes)")
    )
  }),
  (o) => handle((h) => h.inspect(o))
).pipe(Command.withDescription(`a stored run's history, pass by pass (${store})`))

const runsCommand = Command.make(
  "runs",
  noted("runs", {
    user: Options.text("user").pipe(Options.withDescription("only this user's runs"), Options.optional),
    status: choice("status", RUN_STATUSES).pipe(
      Options.withDescription("only runs in this status"),
      Options.optional
    ),
    limit: Options.integer("limit").pipe(
      Options.withDescription("most runs listed, newest first"),
      Options.withDefault(20)
    ),
    json
  }),
  (o) => handle((h) => h.runs(o))
).pipe(Command.withDescription(`the stored runs (${store})`))

const quotaCommand = Command.make(
  "quota",
  noted("quota", {
    user: Options.text("user").pipe(
      Options.withDescription("the user whose quotas are shown (default: runs without a user)"),
      Options.optional
    ),
    json
  }),
  (o) => handle((h) => h.quota(o))
).pipe(
  Command.withDescription("a user's quotas (env AEON_QUOTAS): used and left of each, and when it resets")
)

const serveCommand = Command.make(
  "serve",
  noted("serve", {
    port: Options.integer("port").pipe(
      Options.withDescription("the HTTP port (env AEON_PORT, default 4000; AEON_HOST is the interface)"),
      Options.optional
    ),
    cluster: Options.boolean("cluster").pipe(
      Options.withDescription(
        "run as a runner of a cluster on the PostgreSQL of AEON_DATABASE_URL (env AEON_CLUSTER; see the README's Cluster)"
      )
    ),
    runnerPort: Options.integer("runner-port").pipe(
      Options.withDescription("the port other runners reach this one at (env AEON_RUNNER_PORT, default 34431)"),
      Options.optional
    ),
    mcp: mcpOption
  }),
  (o) =>
    Effect.promise(() =>
      import("../launch/Start.js").then((s) =>
        s.serveUntilSignal({
          ...(Option.isSome(o.port) ? { port: o.port.value } : {}),
          ...(Option.isSome(o.mcp) ? { mcpConfig: o.mcp.value } : {})
        }, {
          ...(o.cluster ? { enabled: true } : {}),
          ...(Option.isSome(o.runnerPort) ? { runnerPort: o.runnerPort.value } : {})
        })
      )
    ).pipe(
      Effect.zipRight(Effect.never)
    )
).pipe(Command.withDescription("the GraphQL server and GraphiQL (configured by the AEON_ variables in the README)"))

const evaluating = Effect.promise(() => import("./Evaluating.js"))
const evalCommand = Command.make(
  "eval",
  noted("eval", {
    file: Args.text({ name: "FILE" }).pipe(
      Args.withDescription("the cases: JSONL, or a JSON array, of { id, task, mode?, budget?, criteria?, expect }")
    ),
    concurrency: Options.integer("concurrency").pipe(
      Options.withDescription("cases run at once (default 4)"),
      Options.optional
    ),
    junit: Options.text("junit").pipe(Options.withDescription("also write a JUnit XML report here"), Options.optional),
    baseline: Options.text("baseline").pipe(
      Options.withDescription("an earlier --json report: mark regressions and improvements; exit 1 on a regression"),
      Options.optional
    ),
    replay: Options.text("replay").pipe(
      Options.withDescription(
        "an earlier --json report: run each case from that run's recordings (free until a call differs)"
      ),
      Options.optional
    ),
    provider: choice("provider", ["openai", "anthropic", "google", "offline", "scripted"]).pipe(
      Options.withDescription("the model's provider (env AEON_MODEL_PROVIDER)"),
      Options.optional
    ),
    script: Options.text("script").pipe(Options.withDescription("a Scripted model's JSON file"), Options.optional),
    json
  }),
  (o) =>
    Effect.flatMap(
      Effect.zip(handlers, evaluating),
      ([h, e]) => e.evaluate(o).pipe(Effect.catchAllCause(h.report))
    )
).pipe(
  Command.withDescription(
    "run an eval set: each case a stored run, judged by its expect; a table and totals (exit 1 when a case fails, or with --baseline on a regression)"
  )
)

const exportCommand = Command.make(
  "export",
  noted("export", {
    runId: runIdArg,
    asCase: Options.boolean("as-case").pipe(Options.withDescription("as an eval case (a JSONL line)")),
    out: Options.text("out").pipe(Options.withDescription("write the case here (default: stdout)"), Options.optional),
    report: Options.text("report").pipe(
      Options.withDescription("also write an eval report naming the run: aeon eval CASE --replay REPORT replays it"),
      Options.optional
    )
  }),
  (o) =>
    Effect.flatMap(
      Effect.zip(handlers, evaluating),
      ([h, e]) => e.exportRun(o).pipe(Effect.catchAllCause(h.report))
    )
).pipe(Command.withDescription("a recorded run as an eval case, to replay it as a regression test"))

const toolsCommand = Command.make(
  "tools",
  noted("tools", {
    mcp: mcpOption,
    json,
    for: Options.text("for").pipe(
      Options.withDescription(
        "what a plan of this task is offered: the entries its prompt carries (a large catalog's choice)"
      ),
      Options.optional
    )
  }),
  (o) => handle((h) => h.tools(o))
)
  .pipe(
    Command.withDescription("the tools a run may call: Aeon's own and those of the MCP servers in --mcp FILE")
  )

/** `aeon chat` and `aeon threads` (cli/Chat, loaded when one runs). */
const chatting = (f: (c: typeof import("./Chat.js")) => Effect.Effect<void, unknown>) =>
  handle((h) => Effect.flatMap(Effect.promise(() => import("./Chat.js")), f).pipe(Effect.catchAllCause(h.report)))

const chatCommand = Command.make(
  "chat",
  noted("chat", {
    thread: Options.text("thread").pipe(
      Options.withDescription("take up this thread again (default: a new one; its id is printed)"),
      Options.optional
    ),
    ...chatInputOptions,
    ...modelOptions,
    mcp: mcpOption
  }),
  (o) => chatting((c) => c.chat(o))
).pipe(
  Command.withDescription(
    "a conversation in the terminal: each line a turn of a thread that sees the turns before it (/exit leaves, Ctrl-C stops a turn)"
  )
)

const threadsCommand = Command.make(
  "threads",
  noted("threads", {
    threadId: Args.text({ name: "threadId" }).pipe(Args.withDescription("a thread: its turns"), Args.optional),
    user: Options.text("user").pipe(
      Options.withDescription("whose threads (default: runs without a user)"),
      Options.optional
    ),
    limit: Options.integer("limit").pipe(Options.withDescription("most listed"), Options.withDefault(20)),
    forget: Options.boolean("forget").pipe(
      Options.withDescription("erase the thread: its turns (their runs) and its summaries")
    ),
    json
  }),
  (o) => chatting((c) => c.threads(o))
).pipe(Command.withDescription(`conversations: the threads, newest first, or one thread's turns (${store})`))

const mcpCommand = Command.make("mcp", noted("mcp", { mcp: mcpOption }), (o) => handle((h) => h.mcpServe(o))).pipe(
  Command.withDescription(
    "Aeon as an MCP server on stdio (tools run_task, get_run, respond, cancel_run): put it in an editor's mcpServers"
  )
)

const SUBCOMMANDS = [
  runCommand,
  inspectCommand,
  runsCommand,
  quotaCommand,
  approveCommand,
  guideCommand,
  cancelCommand,
  forgetCommand,
  forkCommand,
  replayCommand,
  evalCommand,
  exportCommand,
  memoryCommand,
  agentsCommand,
  schedulesCommand,
  chatCommand,
  threadsCommand,
  serveCommand,
  toolsCommand,
  mcpCommand
] as const
const aeon = Command.make("aeon").pipe(Command.withSubcommands(SUBCOMMANDS))
/** The commands' names (every command notes its flags): an unknown one is answered with the nearest. */
const COMMANDS: ReadonlyArray<string> = [...flagsOf.keys()]

/** A flag the command does not take, named before @effect/cli reads the line (it names what follows it instead). */
const refusal = (() => {
  const [command, ...rest] = process.argv.slice(2)
  const subs = command === undefined ? undefined : subcommandsOf.get(command)
  const sub = rest[0]
  if (subs !== undefined && sub !== undefined && !sub.startsWith("-") && !subs.includes(sub)) {
    const near = nearest(sub, subs)
    return `aeon ${command}: unknown command ${sub}${near ? ` (did you mean ${near}?)` : ""}; ` +
      `aeon ${command} takes ${subs.join(", ")}`
  }
  if (command !== undefined && !command.startsWith("-") && !COMMANDS.includes(command)) {
    const near = nearest(command, COMMANDS)
    return `aeon: unknown command ${command}${near ? ` (did you mean ${near}?)` : ""}; aeon --help lists the commands`
  }
  const known = command === undefined ? undefined : flagsOf.get(command)
  const valued = valueFlagsOf.get(command!) ?? []
  return known === undefined
    ? undefined
    : unknownFlag(command!, rest, known) ?? missingValue(command!, rest, valued) ??
      (command === "run" ? unquotedTask(command, rest, valued) : undefined)
})()

if (process.argv.length === 3 && process.argv[2] === "--version") {
  // the version alone, on one line (@effect/cli's own adds a blank line)
  process.stdout.write(`${version}\n`)
} else if (refusal !== undefined) {
  // exit 1, as @effect/cli's other usage errors (a missing argument, a value of the wrong type)
  process.stderr.write(`${refusal}\n`)
  process.exitCode = 1
} else {
  Command.run(aeon, { name: "aeon", version })(canonicalChoices(process.argv, choicesOf)).pipe(
    Effect.provide(Layer.merge(NodeContext.layer, HelpConsole.layer)),
    NodeRuntime.runMain({ disableErrorReporting: true })
  )
}
