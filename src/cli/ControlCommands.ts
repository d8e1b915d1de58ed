import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { handlers, noted } from "./CommandParts.js"

/** `aeon approve`, `guide`, `cancel`, `forget`: a person's say over a run (what they do: cli/RunControl). */

export const runIdArg = Args.text({ name: "runId" }).pipe(Args.withDescription("the run's id"))

const control = Effect.promise(() => import("./RunControl.js"))
const handleControl = (f: (h: typeof import("./RunControl.js")) => Effect.Effect<void, unknown>) =>
  Effect.flatMap(Effect.zip(handlers, control), ([h, c]) => f(c).pipe(Effect.catchAllCause(h.report)))

export const approveCommand = Command.make(
  "approve",
  noted("approve", {
    runId: runIdArg,
    requestId: Args.text({ name: "requestId" }).pipe(Args.withDescription("the request's id (aeon run printed it)")),
    reject: Options.boolean("reject").pipe(
      Options.withDescription("refuse the call (its step fails with --reason) or the plan (the run ends cancelled)")
    ),
    reason: Options.text("reason").pipe(Options.withDescription("why the call is refused"), Options.optional),
    input: Options.text("input").pipe(
      Options.withDescription(
        "run the call with this input instead (JSON; it must fit the tool's input); for a plan, its edits (a JSON list of refinement actions)"
      ),
      Options.optional
    )
  }),
  (o) => handleControl((h) => h.approve(o))
).pipe(
  Command.withDescription("answer a tool call or a plan waiting for approval; then aeon run --resume RUN goes on")
)

export const guideCommand = Command.make(
  "guide",
  noted("guide", {
    runId: runIdArg,
    requestId: Args.text({ name: "requestId" }).pipe(Args.withDescription("the request's id (aeon run printed it)")),
    text: Args.text({ name: "guidance" }).pipe(Args.withDescription("what the run should do"))
  }),
  (o) => handleControl((h) => h.guideRun(o))
).pipe(Command.withDescription("give guidance to a run that asked for it"))

export const cancelCommand = Command.make(
  "cancel",
  noted("cancel", { runId: runIdArg }),
  (o) => handleControl((h) => h.cancel(o))
).pipe(
  Command.withDescription(
    "stop a run where it runs (beside a server, on the server): it ends cancelled, a tool call under way finishing first"
  )
)

export const forgetCommand = Command.make(
  "forget",
  noted("forget", {
    runId: runIdArg,
    user: Options.text("user").pipe(
      Options.withDescription("whose run (default: runs without a user)"),
      Options.optional
    )
  }),
  (o) => handleControl((h) => h.forget(o))
).pipe(
  Command.withDescription(
    "erase a run that has ended: its events and prompts, memories, summaries, and the files only it carried"
  )
)
