import { Config, Effect, Layer, ParseResult, Schema } from "effect"
import { readFileSync } from "node:fs"
import { ALL_PROMPT_IDS, PromptId } from "../prompts/PromptId.js"
import { messageOf } from "../support/Thrown.js"
import * as LanguageModel from "./LanguageModel.js"
import { ModelHttpError, ModelUnavailableError } from "./ModelErrors.js"
import { FREE } from "./Pricing.js"

/** One scripted answer: a JSON output, raw text (may be malformed), or an HTTP error; optionally delayed. */
export const ScriptResponse = Schema.Struct({
  output: Schema.optional(Schema.Unknown),
  raw: Schema.optional(Schema.String),
  error: Schema.optional(Schema.Struct({ status: Schema.Number, message: Schema.optional(Schema.String) })),
  delayMs: Schema.optional(Schema.Number),
  /** The pause between the answer's chunks as it is handed out (paced like a model writing). */
  chunkDelayMs: Schema.optional(Schema.Number),
  inputTokens: Schema.optional(Schema.Int),
  outputTokens: Schema.optional(Schema.Int),
  /** Of the input tokens, those the provider says it read from its prompt cache. */
  cachedInputTokens: Schema.optional(Schema.Int),
  /** The provider says the answer was cut at its output cap (finish_reason "length"), whatever its text. */
  truncated: Schema.optional(Schema.Boolean)
}).pipe(
  Schema.filter((r) =>
    [r.output !== undefined, r.raw !== undefined, r.error !== undefined].filter(Boolean).length === 1 ||
    "a scripted response has exactly one of output, raw or error"
  )
)
export type ScriptResponse = typeof ScriptResponse.Type

const userPromptIds: ReadonlyArray<string> = ALL_PROMPT_IDS.filter((id) => id.endsWith("_user"))

/** The file format: for each user PromptId value, the responses in order (the last repeats). */
export const ScriptFile = Schema.Struct({
  fallback: Schema.optional(Schema.Literal("offline", "error"))
}).pipe(
  Schema.extend(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  Schema.filter((file) => {
    for (const key of Object.keys(file)) {
      if (key !== "fallback" && !userPromptIds.includes(key)) {
        return `unknown prompt "${key}" in script; expected one of: ${userPromptIds.join(", ")}`
      }
    }
    return true
  })
)

export type ScriptEntry =
  | ScriptResponse
  | ((request: LanguageModel.CompletionRequest, callIndex: number) => ScriptResponse)
export type Script = Partial<Record<PromptId, ReadonlyArray<ScriptEntry>>>

export interface ScriptedModel {
  readonly service: LanguageModel.Service
  /** Every request the model received, in order: tests read prompt inputs from here. */
  readonly calls: Array<LanguageModel.CompletionRequest>
}

export const make = (
  script: Script,
  fallback?: LanguageModel.Service,
  options: { readonly record?: boolean } = {}
): ScriptedModel => {
  const calls: Array<LanguageModel.CompletionRequest> = []
  const counters = new Map<PromptId, number>()
  const complete: LanguageModel.Service["complete"] = (request) =>
    Effect.suspend(() => {
      if (options.record !== false) calls.push(request)
      // a task planned without tools asks plan_direct_user: a script's plan_generation_user answers it too
      const key = request.promptId === PromptId.PLAN_DIRECT_USER && !script[PromptId.PLAN_DIRECT_USER]
        ? PromptId.PLAN_GENERATION_USER
        : request.promptId
      const entries = script[key]
      if (!entries || entries.length === 0) {
        return fallback
          ? fallback.complete(request)
          : Effect.fail(
            new ModelUnavailableError({ message: `scripted model has no response for prompt ${request.promptId}` })
          )
      }
      const n = counters.get(key) ?? 0
      counters.set(key, n + 1)
      const entry = entries[Math.min(n, entries.length - 1)]!
      const response = typeof entry === "function" ? entry(request, n) : entry
      const answer: Effect.Effect<LanguageModel.CompletionResponse, ModelHttpError> = response.error
        ? Effect.fail(
          new ModelHttpError({
            status: response.error.status,
            message: response.error.message ?? `scripted HTTP ${response.error.status}`
          })
        )
        : Effect.sync(() => {
          // an answer with no usage of its own is cut at the output cap, as a provider does (and says so); a reply
          // that states its usage is sent as it is (a provider reporting more than it was allowed)
          const full = response.raw ?? JSON.stringify(response.output)
          const text = response.outputTokens === undefined
            ? LanguageModel.capOutput(full, request.maxOutputTokens)
            : full
          return {
            text,
            truncated: response.truncated ?? text.length < full.length,
            inputTokens: response.inputTokens,
            outputTokens: response.outputTokens,
            cachedInputTokens: response.cachedInputTokens
          }
        }).pipe(Effect.tap((r) => LanguageModel.streamText(r.text, request.onText, response.chunkDelayMs)))
      return response.delayMs ? Effect.delay(answer, response.delayMs) : answer
    })
  return { service: LanguageModel.make("scripted", FREE, complete), calls }
}

export const layer = (script: Script, fallback?: LanguageModel.Service) =>
  Layer.succeed(LanguageModel.LanguageModel, make(script, fallback).service)

export class ScriptLoadError extends Schema.TaggedError<ScriptLoadError>()("ScriptLoadError", {
  path: Schema.String,
  message: Schema.String
}) {}

/** A schema's complaint on one line: "0.error.status: Expected number, actual \"x\"; …" (no tree, no schema dump). */
const oneLine = (e: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(e).map((i) =>
    `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.message}`
  ).join("; ")

/** Reads and checks a script file: every entry must be a valid response. */
export const loadScript = (path: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => readFileSync(path, "utf8"),
      catch: (e) => new ScriptLoadError({ path, message: `cannot read the script ${path}: ${messageOf(e)}` })
    })
    const json = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (e) => new ScriptLoadError({ path, message: `the script ${path} is not JSON: ${messageOf(e)}` })
    })
    const file = yield* Schema.decodeUnknown(ScriptFile)(json).pipe(
      Effect.mapError((e) => new ScriptLoadError({ path, message: `${path} is not a script: ${oneLine(e)}` }))
    )
    const script: Record<string, ReadonlyArray<ScriptResponse>> = {}
    for (const [key, value] of Object.entries(file)) {
      if (key === "fallback") continue
      script[key] = yield* Schema.decodeUnknown(Schema.Array(ScriptResponse))(value).pipe(
        Effect.mapError((e) =>
          new ScriptLoadError({ path, message: `script ${path}, responses for ${key}: ${oneLine(e)}` })
        )
      )
    }
    return { script: script as Script, fallback: file.fallback }
  })

export const scriptPathConfig = Config.string("AEON_SCRIPT").pipe(
  Config.withDescription("Path of the Scripted model's JSON script (AEON_MODEL_PROVIDER=scripted)")
)
