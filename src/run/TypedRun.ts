import { Effect, Either, ParseResult, Schema } from "effect"
import type { RunResult } from "../record/RunResult.js"
import { plainJsonSchema } from "../support/JsonSchemas.js"
import * as Run from "./Run.js"
import type { RunTaskInputEncoded } from "./RunInput.js"

/**
 * Typed results in the library: `runTask({ task, output: MySchema })`. The Schema's JSON Schema (`JSONSchema.make`,
 * of its encoded side: what the model writes) is the run's `outputSchema`; the result's `data` is the answer's value
 * decoded by the Schema, typed `A` — undefined when the run has no value of it (`errorCode` OUTPUT_SCHEMA says why).
 */
export type TypedRunInput<A, I> = Omit<RunTaskInputEncoded, "outputSchema"> & {
  readonly output: Schema.Schema<A, I, never>
}

export interface TypedRunResult<A> extends RunResult {
  readonly data: A | undefined
}

type RunError = Effect.Effect.Error<ReturnType<typeof Run.runTask>>
type RunNeeds = Effect.Effect.Context<ReturnType<typeof Run.runTask>>

const typed = <A, I>(input: TypedRunInput<A, I>): Effect.Effect<TypedRunResult<A>, RunError, RunNeeds> => {
  const { output, ...rest } = input
  return Run.runTask({ ...rest, outputSchema: plainJsonSchema(output) }).pipe(
    Effect.map((result): TypedRunResult<A> => {
      const json = result.finalAnswer?.data
      if (json === undefined) return { ...result, data: undefined }
      // the value met the JSON Schema; the Schema's own checks beyond it (a filter with no JSON Schema) are said too
      const decoded = Schema.decodeUnknownEither(output)(json)
      return Either.isRight(decoded) ? { ...result, data: decoded.right } : {
        ...result,
        data: undefined,
        advisories: [
          ...result.advisories,
          `the answer's value does not decode with the output Schema: ${
            ParseResult.TreeFormatter.formatErrorSync(decoded.left)
          }`
        ]
      }
    })
  )
}

/** Runs a task to its end: with `output`, a typed result (`data: A`); without it, the run's result as it is. */
export function runTask<A, I>(input: TypedRunInput<A, I>): Effect.Effect<TypedRunResult<A>, RunError, RunNeeds>
export function runTask(input: unknown): Effect.Effect<RunResult, RunError, RunNeeds>
export function runTask(input: unknown): Effect.Effect<RunResult, RunError, RunNeeds> {
  return input !== null && typeof input === "object" && "output" in input && Schema.isSchema(input.output)
    ? typed(input as TypedRunInput<unknown, unknown>)
    : Run.runTask(input)
}
