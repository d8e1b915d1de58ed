import { Effect } from "effect"
import {
  jsonValueOf,
  type PreparedOutputSchema,
  renderValue,
  valueOf,
  violationsOf
} from "../convergence/OutputSchema.js"
import type { RunHalt } from "../domain/Errors.js"
import { liveSteps } from "../domain/Plan.js"
import type { FinalAnswer } from "../domain/Result.js"
import { answerOf as answerTextOf } from "../llm/Completion.js"
import { isModelFailure } from "../llm/Llm.js"
import { typedAnswerContract } from "../prompts/PromptRegistry.js"
import { traced } from "../telemetry/Span.js"
import { extractive, type SynthesisInput } from "./AnswerSynthesis.js"
import type { Stop } from "./Stop.js"

/**
 * A run's answer as a value of its output schema (run input `outputSchema`). A value the run already has — the plan's
 * answer with the steps' results filled in, or its one step's output — is the answer when it meets the schema (no
 * call); otherwise one call asks the model for the value under the provider's structured output, and a value that
 * breaks the schema is sent back once with the exact paths that failed. A value that still breaks it is no answer:
 * `data` stays absent and the run names what failed (OUTPUT_SCHEMA).
 */
export interface TypedAnswer {
  readonly answer: FinalAnswer
  /** What in the model's last value breaks the schema (`/items/0/price: must be number`); empty when it is valid. */
  readonly violations: ReadonlyArray<string>
}

/** The answer carrying the value: `data`, and `answerText` its readable rendering. */
const carrying = (answer: FinalAnswer, value: unknown): FinalAnswer => ({
  ...answer,
  answerText: renderValue(value),
  data: value
})

/**
 * An answer the run made without a synthesis call (the plan's, or its one step's) as the typed answer, when its text
 * is a value of the schema — JSON, or the text itself for a text schema. Undefined otherwise.
 */
export const directValue = (
  schema: PreparedOutputSchema,
  candidate: FinalAnswer | undefined
): FinalAnswer | undefined => {
  if (candidate === undefined) return undefined
  const json = jsonValueOf(candidate.answerText)
  const value = [json, candidate.answerText].find((v) => v !== undefined && violationsOf(schema, v).length === 0)
  return value === undefined ? undefined : carrying(candidate, value)
}

/** The longest an earlier value is quoted back to the model in the repair. */
const QUOTED_VALUE_CHARS = 2_000

const repairSection = (value: unknown, violations: ReadonlyArray<string>) =>
  `\n\nAn earlier value broke the output schema at:\n${violations.join("\n")}\nThat value (quoted data): ${
    JSON.stringify(value)?.slice(0, QUOTED_VALUE_CHARS) ?? "none"
  }\nReturn the value corrected.`

export type Written = { readonly value: unknown; readonly violations: ReadonlyArray<string>; readonly text?: string }

/** One call for the value; a model that writes no JSON at all (after the supervisor's repair) broke the schema too. */
const write = (input: SynthesisInput, schema: PreparedOutputSchema, requirements?: string, repair?: string) =>
  Effect.suspend(() => {
    const llm = input.llm!
    return llm.generate(typedAnswerContract(schema.sent, schema.strict), {
      request: input.request,
      executionResults: liveSteps(input.plan.steps).map((s) => ({
        stepId: s.stepId,
        description: s.description,
        status: s.status,
        stepOutput: s.stepOutput
      })),
      convergenceStatus: input.converged,
      label: input.label,
      ...(requirements !== undefined ? { answerRequirements: `\nThe answer must also: ${requirements}` } : {}),
      ...(repair !== undefined ? { repair } : {}),
      ...(input.conversation ? { conversation: input.conversation } : {})
    }, input.attachments?.length ? { attachments: input.attachments } : {}).pipe(
      Effect.map(({ output, text }): Written => {
        const value = valueOf(schema, output)
        // the text as the model wrote it is the answer's text (what was streamed), unless it is the value's wrapper
        return {
          value,
          violations: violationsOf(schema, value),
          ...(schema.wrapped ? {} : { text: answerTextOf(text) })
        }
      }),
      Effect.catchIf(isModelFailure, (e) =>
        Effect.succeed<Written>({
          value: undefined,
          violations: [
            e._tag === "ModelDecodeError"
              ? "/: the model wrote no JSON value"
              : `/: no value (the answer call failed: ${e.message})`
          ]
        }))
    )
  })

const answerOf = (input: SynthesisInput, written: Written, repaired: boolean): TypedAnswer => {
  const used = liveSteps(input.plan.steps).filter((s) => s.status === "complete").map((s) => s.stepId)
  const base: FinalAnswer = {
    answerText: written.value === undefined
      ? extractive(input, "no value").answerText
      : written.text ?? renderValue(written.value),
    usedStepIds: used,
    converged: input.converged && written.violations.length === 0,
    label: input.label,
    ...(input.label === "ttl_exhausted" ? { ttlExhausted: true } : {}),
    notes: written.violations.length === 0
      ? `A value of the output schema${repaired ? ", repaired once" : ""}.`
      : `The value breaks the output schema${repaired ? " after one repair" : ""}: ${written.violations.join("; ")}`
  }
  return {
    answer: written.violations.length === 0 ? { ...base, data: written.value } : base,
    violations: written.violations
  }
}

/**
 * The value an answer made with no call holds when it is JSON that breaks the schema (a plan's answer naming another
 * field): the typed call is then told what broke it. Undefined when it is no JSON value.
 */
export const brokenValue = (schema: PreparedOutputSchema, candidate: FinalAnswer | undefined): Written | undefined => {
  const value = candidate === undefined ? undefined : jsonValueOf(candidate.answerText)
  return value === undefined || value === null || typeof value !== "object"
    ? undefined
    : { value, violations: violationsOf(schema, value) }
}

/**
 * The typed answer by the model: one call (told what broke `earlier`, the plan's value, when there is one), and one
 * repair with the violations when its value breaks the schema.
 */
export const synthesizeTyped = (
  input: SynthesisInput,
  schema: PreparedOutputSchema,
  requirements?: string,
  earlier?: Written
): Effect.Effect<TypedAnswer, RunHalt> =>
  Effect.gen(function*() {
    if (!input.llm) return { answer: extractive(input, "no model call allowed"), violations: [] }
    const told = earlier !== undefined && earlier.violations.length > 0
      ? repairSection(earlier.value, earlier.violations)
      : undefined
    const first = yield* write(input, schema, requirements, told)
    if (first.violations.length === 0) return answerOf(input, first, false)
    const second = yield* write(input, schema, requirements, repairSection(first.value, first.violations)).pipe(
      Effect.catchTags({
        BudgetExhaustedError: () => Effect.succeed(undefined),
        ProviderFailedError: () => Effect.succeed(undefined)
      })
    )
    return second === undefined ? answerOf(input, first, false) : answerOf(input, second, true)
  }).pipe(
    traced("TypedAnswer.synthesize", { captureStackTrace: false })
  )

/**
 * A typed run (output schema) that would converge without a value of its schema does not: it fails, coded
 * OUTPUT_SCHEMA, naming what broke the schema — and another attempt (escalation) is not made for it.
 */
export const typedStop = (stop: Stop, answer: FinalAnswer | undefined, violations: ReadonlyArray<string>): Stop =>
  stop.reason !== "converged" || answer?.data !== undefined
    ? stop
    : {
      reason: "failed",
      errorCode: "OUTPUT_SCHEMA",
      error: `the answer has no value of the output schema: ${
        violations.length > 0 ? violations.join("; ") : answer?.notes ?? "no value was written"
      }`,
      unrecoverable: true
    }
