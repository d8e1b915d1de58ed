import { Args, Command, Options } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Option } from "effect"
import { version } from "../support/PackageFiles.js"

/**
 * The `aeon` command: its commands and flags. What a command does lives in Handlers (and the server in
 * server/Start), loaded only when that command runs, so `aeon --help` loads neither the engine nor the store.
 */
const handlers = Effect.promise(() => import("./Handlers.js"))
const handle = (f: (h: typeof import("./Handlers.js")) => Effect.Effect<void, unknown>) =>
  Effect.flatMap(handlers, (h) => f(h).pipe(Effect.catchAllCause(h.report)))

const json = Options.boolean("json").pipe(Options.withDescription("print the result as one JSON document"))

const runCommand = Command.make("run", {
  task: Args.text({ name: "task" }).pipe(Args.withDescription("what to do"), Args.optional),
  resume: Options.text("resume").pipe(
    Options.withDescription("go on with a run that stopped (waiting for approval, or cut off) instead of a new task"),
    Options.optional
  ),
  interactive: Options.boolean("interactive").pipe(
    Options.withDescription("ask for guidance where the run would need manual intervention")
  ),
  approvalTimeout: Options.text("approval-timeout").pipe(
    Options.withDescription("reject a call nobody approved in this time (30s, 2m, …)"),
    Options.optional
  ),
  pauseDeadline: Options.boolean("pause-deadline").pipe(
    Options.withDescription("the deadline stands still while the run waits for you")
  ),
  approveTools: Options.text("approve-tools").pipe(
    Options.withDescription(
      "comma-separated tools whose calls wait for your approval (* for every tool with side effects)"
    ),
    Options.optional
  ),
  mode: Options.choice("mode", ["auto", "simple", "full"]).pipe(Options.optional),
  simple: Options.integer("simple").pipe(
    Options.withDescription("simple-mode iterations before escalating"),
    Options.optional
  ),
  noEscalate: Options.boolean("no-escalate").pipe(Options.withDescription("stop after the simple iterations")),
  full: Options.boolean("full").pipe(Options.withDescription("multi-pass from the start (same as --mode full)")),
  ttl: Options.integer("ttl").pipe(Options.optional),
  deadline: Options.text("deadline").pipe(Options.optional),
  maxCostUsd: Options.float("max-cost-usd").pipe(Options.optional),
  maxTokens: Options.integer("max-tokens").pipe(Options.optional),
  maxLlmCalls: Options.integer("max-llm-calls").pipe(Options.optional),
  maxSteps: Options.integer("max-steps").pipe(Options.optional),
  provider: Options.choice("provider", ["openai", "offline", "scripted"]).pipe(Options.optional),
  model: Options.text("model").pipe(Options.optional),
  baseUrl: Options.text("base-url").pipe(Options.optional),
  script: Options.text("script").pipe(Options.optional),
  user: Options.text("user").pipe(Options.optional),
  tools: Options.text("tools").pipe(
    Options.withDescription("comma-separated tools the run may use (default: all)"),
    Options.optional
  ),
  parallelism: Options.integer("parallelism").pipe(
    Options.withDescription("independent ready steps run this many at a time"),
    Options.optional
  ),
  answerMatches: Options.text("answer-matches").pipe(Options.optional),
  criteria: Options.text("criteria").pipe(
    Options.withDescription("convergence criteria as a JSON file"),
    Options.optional
  ),
  json
}, (o) => handle((h) => h.run(o)))

const inspectCommand = Command.make(
  "inspect",
  { runId: Args.text({ name: "runId" }), json },
  (o) => handle((h) => h.inspect(o))
)

const statuses = ["QUEUED", "RUNNING", "CONVERGED", "NOT_CONVERGED", "FAILED", "CANCELLED"] as const
const runsCommand = Command.make("runs", {
  user: Options.text("user").pipe(Options.optional),
  status: Options.choice("status", statuses).pipe(Options.optional),
  limit: Options.integer("limit").pipe(Options.withDefault(20)),
  json
}, (o) => handle((h) => h.runs(o)))

const serveCommand = Command.make(
  "serve",
  { port: Options.integer("port").pipe(Options.optional) },
  (o) =>
    Effect.promise(() =>
      import("../server/Start.js").then((s) => s.serveUntilSignal(Option.isSome(o.port) ? { port: o.port.value } : {}))
    ).pipe(
      Effect.zipRight(Effect.never)
    )
)

const approveCommand = Command.make("approve", {
  runId: Args.text({ name: "runId" }),
  requestId: Args.text({ name: "requestId" }),
  reject: Options.boolean("reject").pipe(Options.withDescription("refuse the call: its step fails with --reason")),
  reason: Options.text("reason").pipe(Options.optional),
  input: Options.text("input").pipe(
    Options.withDescription("run the call with this input instead (JSON; it must fit the tool's input)"),
    Options.optional
  )
}, (o) => handle((h) => h.approve(o)))

const guideCommand = Command.make("guide", {
  runId: Args.text({ name: "runId" }),
  requestId: Args.text({ name: "requestId" }),
  text: Args.text({ name: "guidance" }).pipe(Args.withDescription("what the run should do"))
}, (o) => handle((h) => h.guideRun(o)))

const aeon = Command.make("aeon").pipe(
  Command.withSubcommands([runCommand, inspectCommand, runsCommand, approveCommand, guideCommand, serveCommand])
)

Command.run(aeon, { name: "aeon", version })(process.argv).pipe(
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
