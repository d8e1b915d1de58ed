/**
 * Guardrails: checks on what goes into a run (`input`), what its tools are given (`tool_call`) and return
 * (`tool_result`), and what it answers (`output`). A guardrail allows a text, redacts it (placeholders such as
 * `<EMAIL_1>`: the same value, the same placeholder within a run) or blocks it. The built-in ones are data
 * (GuardrailSpec); a library's own is a function returning an Effect of a verdict — a model-based check is written so.
 */
import { Config, Context, Data, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import { readFileSync } from "node:fs"
import type { Llm } from "../llm/Llm.js"
import { messageOf } from "../support/Thrown.js"
import { type GuardrailPoint, type GuardrailSpec, GuardrailsSpec, specName } from "./GuardrailSpec.js"

export type Verdict =
  | { readonly _tag: "allow" }
  | { readonly _tag: "redact"; readonly text: string }
  | { readonly _tag: "block"; readonly reason: string }

export const allow: Verdict = { _tag: "allow" }
export const redact = (text: string): Verdict => ({ _tag: "redact", text })
export const block = (reason: string): Verdict => ({ _tag: "block", reason })

/** What a guardrail is told besides the text: where in the run it is, and the run's model (from `tool_call` on). */
export interface GuardrailContext {
  readonly point: GuardrailPoint
  readonly runId: string
  readonly stepId?: string | undefined
  /**
   * The run's model: a call made through it is admitted by the run's budget, counted and recorded like the run's
   * own. Absent at `input`, which is checked before anything of the run exists.
   */
  readonly llm?: Llm | undefined
}

/** A guardrail of one's own: a name (in its events) and its check. */
export interface Guardrail {
  readonly name: string
  readonly check: (text: string, context: GuardrailContext) => Effect.Effect<Verdict>
}

export type GuardrailEntry = GuardrailSpec | Guardrail
export type GuardrailSet = { readonly [P in GuardrailPoint]?: ReadonlyArray<GuardrailEntry> }

export const isCustom = (g: GuardrailEntry): g is Guardrail => "check" in g
export const entryName = (g: GuardrailEntry) => (isCustom(g) ? g.name : specName(g))

/** The sets one after the other at each point: a run's checks add to the server's, never take any away. */
export const combine = (...sets: ReadonlyArray<GuardrailSet | undefined>): GuardrailSet => {
  const out: { [P in GuardrailPoint]?: Array<GuardrailEntry> } = {}
  for (const set of sets) {
    for (const [point, entries] of Object.entries(set ?? {}) as Array<[GuardrailPoint, Array<GuardrailEntry>]>) {
      if (entries.length > 0) out[point] = [...out[point] ?? [], ...entries]
    }
  }
  return out
}

/** The server's (the operator's) guardrails. */
export class Guardrails extends Context.Tag("aeon/Guardrails")<Guardrails, { readonly set: GuardrailSet }>() {}

/** The operator's guardrails, given in code (built-in specs and one's own checks mixed). */
export const layer = (set: GuardrailSet) => Layer.succeed(Guardrails, { set })

export class GuardrailsConfigError extends Data.TaggedError("GuardrailsConfigError")<{ readonly message: string }> {}

/** "output.0.words: …": a guardrails JSON value's first faults, each with its path. */
export const decodeSpec = (raw: unknown): Either.Either<GuardrailsSpec, string> =>
  Schema.decodeUnknownEither(GuardrailsSpec)(raw, { onExcessProperty: "error", errors: "all" }).pipe(
    Either.mapLeft((e) =>
      ParseResult.ArrayFormatter.formatErrorSync(e)
        .filter((i, _, all) => !(i.message.startsWith("Expected undefined") && all.length > 1))
        .slice(0, 5)
        .map((i) => `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.message}`)
        .join("; ")
    )
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
    return { set: Option.isSome(file) ? yield* load(file.value) : {} }
  })
)
