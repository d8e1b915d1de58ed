import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { handlers, json, noted } from "./CommandParts.js"
import { runIdArg } from "./ControlCommands.js"
import { choice } from "./Flags.js"
import { budgetOptions } from "./RunFlags.js"

/** `aeon fork` and `aeon replay`: a run again from its recordings (what they do: cli/Forking), and the model flags. */

/** The model, as `aeon run` and `aeon fork` take it. */
export const modelOptions = {
  provider: choice("provider", ["openai", "anthropic", "google", "offline", "scripted"]).pipe(
    Options.withDescription(
      "the model's provider (env AEON_MODEL_PROVIDER; default: openai when OPENAI_API_KEY or AEON_LLM_API_KEY is set, anthropic when only ANTHROPIC_API_KEY is, google when only GOOGLE_API_KEY or GEMINI_API_KEY is, else offline)"
    ),
    Options.optional
  ),
  model: Options.text("model").pipe(Options.withDescription("the model's name (env AEON_MODEL)"), Options.optional),
  baseUrl: Options.text("base-url").pipe(
    Options.withDescription(
      "the provider's endpoint (env AEON_LLM_BASE_URL; or OPENAI_BASE_URL for openai and OpenAI-compatible servers, ANTHROPIC_BASE_URL for anthropic, GOOGLE_GEMINI_BASE_URL for google)"
    ),
    Options.optional
  ),
  script: Options.text("script").pipe(
    Options.withDescription("a Scripted model's JSON file; implies --provider scripted (env AEON_SCRIPT)"),
    Options.optional
  )
}

const forking = Effect.promise(() => import("./Forking.js"))
const handleForking = (f: (h: typeof import("./Forking.js")) => Effect.Effect<void, unknown>) =>
  Effect.flatMap(Effect.zip(handlers, forking), ([h, k]) => f(k).pipe(Effect.catchAllCause(h.report)))

export const forkCommand = Command.make(
  "fork",
  noted("fork", {
    runId: runIdArg,
    at: Options.integer("at").pipe(
      Options.withDescription("the event to fork at (its seq, as aeon inspect RUN --events shows)")
    ),
    ...budgetOptions,
    approve: Options.boolean("approve").pipe(Options.withDescription("approve the request open at the fork point")),
    reject: Options.boolean("reject").pipe(Options.withDescription("reject the request open at the fork point")),
    reason: Options.text("reason").pipe(Options.withDescription("why (with --reject)"), Options.optional),
    guidance: Options.text("guidance").pipe(
      Options.withDescription("answer the guidance request open at the fork point"),
      Options.optional
    ),
    edit: Options.text("edit").pipe(
      Options.withDescription(
        `edit the plan at the fork point (a PassFinished event) with a refinement action as JSON, e.g. '{"actionType":"REMOVE","targetStepId":"s3"}'; repeatable`
      ),
      Options.repeated
    ),
    ...modelOptions,
    json
  }),
  (o) => handleForking((k) => k.fork(o))
).pipe(
  Command.withDescription(
    "a new run from RUN's events up to --at, with the changes given, run to its end: calls answered from RUN's recordings (free) until one differs (exit codes as aeon run)"
  )
)

export const replayCommand = Command.make(
  "replay",
  noted("replay", {
    runId: runIdArg,
    json,
    policy: Options.text("policy").pipe(
      Options.withDescription(
        "an untrusted-data policy file: report which of RUN's calls with side effects it would hold (exit 1 if any)"
      ),
      Options.optional
    )
  }),
  (o) => handleForking((k) => k.replay(o))
).pipe(
  Command.withDescription(
    "run RUN again with today's code from its recordings only (no model, no cost) and report the first divergence or identical (exit 0 identical, 1 diverged, 2 cannot replay: no such run, no recordings)"
  )
)
