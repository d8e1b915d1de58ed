/**
 * Guardrails: checks on what goes into a run (`input`), what its tools are given (`tool_call`) and return
 * (`tool_result`), and what it answers (`output`). A guardrail allows a text, redacts it (placeholders such as
 * `<EMAIL_1>`: the same value, the same placeholder within a run) or blocks it. The built-in ones are data
 * (GuardrailSpec); a library's own is a function returning an Effect of a verdict — a model-based check is written so.
 */
import { Config, Context, Data, Effect, Either, Layer, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { formatIssues } from "../support/ParseIssues.js"
import { messageOf } from "../support/Thrown.js"
import { makePlaceholders, type Placeholders, type Trigger } from "./Checking.js"
import type { GuardrailSet } from "./Guardrail.js"
import { GuardrailsSpec } from "./GuardrailSpec.js"

export * from "./Guardrail.js"

/** How often a guardrail triggered in this process (health). */
export interface TriggerCount {
  readonly point: string
  readonly guardrail: string
  readonly action: string
  readonly count: number
}

export interface Service {
  /** The server's (the operator's) guardrails: every run's. */
  readonly set: GuardrailSet
  /**
   * A run's placeholders, one set per run in this process, so that a value redacted in the task and met again in a
   * tool's result gets the same one; a run resumed elsewhere goes on numbering after those its log holds.
   */
  readonly placeholdersOf: (runId: string, seen?: Iterable<string>) => Placeholders
  readonly counted: (t: Trigger) => void
  readonly counts: () => ReadonlyArray<TriggerCount>
}

/** The server's guardrails, with the process's placeholders and counts. */
export class Guardrails extends Context.Tag("aeon/Guardrails")<Guardrails, Service>() {}

/** Runs whose placeholders a process keeps (the oldest forgotten past it: their values get new ones). */
const KEPT_RUNS = 10_000

export const make = (set: GuardrailSet): Service => {
  const runs = new Map<string, Placeholders>()
  const tally = new Map<string, TriggerCount>()
  return {
    set,
    placeholdersOf: (runId, seen) => {
      const known = runs.get(runId)
      if (known) return known
      if (runs.size >= KEPT_RUNS) runs.delete(runs.keys().next().value!)
      const made = makePlaceholders(seen)
      runs.set(runId, made)
      return made
    },
    counted: (t) => {
      const key = `${t.point}\u0000${t.guardrail}\u0000${t.action}`
      const was = tally.get(key)
      tally.set(key, { point: t.point, guardrail: t.guardrail, action: t.action, count: (was?.count ?? 0) + 1 })
    },
    counts: () => [...tally.values()]
  }
}

/** The operator's guardrails, given in code (built-in specs and one's own checks mixed). */
export const layer = (set: GuardrailSet) => Layer.sync(Guardrails, () => make(set))

export class GuardrailsConfigError extends Data.TaggedError("GuardrailsConfigError")<{ readonly message: string }> {}

/** "output.0.words: …": a guardrails JSON value's first faults, each with its path. */
export const decodeSpec = (raw: unknown): Either.Either<GuardrailsSpec, string> =>
  Schema.decodeUnknownEither(GuardrailsSpec)(raw, { onExcessProperty: "error", errors: "all" }).pipe(
    Either.mapLeft((e) => formatIssues(e, 5))
  )

/** Reads and checks the operator's file. */
export const load = (file: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => readFileSync(file, "utf8"),
      catch: (e) => new GuardrailsConfigError({ message: `cannot read guardrails ${file}: ${messageOf(e)}` })
    })
    const raw = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (e) => new GuardrailsConfigError({ message: `guardrails ${file} is not JSON: ${messageOf(e)}` })
    })
    return yield* Either.match(decodeSpec(raw), {
      onLeft: (why) => Effect.fail(new GuardrailsConfigError({ message: `guardrails ${file}: ${why}` })),
      onRight: (spec) => Effect.succeed(spec)
    })
  })

/** `AEON_GUARDRAILS`: the operator's file (none: no guardrail but a run's own). */
export const layerConfig = Layer.effect(
  Guardrails,
  Effect.gen(function*() {
    const file = yield* Config.option(
      Config.string("AEON_GUARDRAILS").pipe(
        Config.withDescription("A JSON file of guardrails per point (input, tool_call, tool_result, output)")
      )
    )
    return make(Option.isSome(file) ? yield* load(file.value) : {})
  })
)
