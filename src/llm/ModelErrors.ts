import { Schema } from "effect"

/** The model endpoint answered with an HTTP error (after retries when retryable). */
export class ModelHttpError extends Schema.TaggedError<ModelHttpError>()("ModelHttpError", {
  status: Schema.Number,
  message: Schema.String,
  /** Retrying cannot change it (a refused key, an unknown model or path): the run ends rather than ask again. */
  lasting: Schema.optional(Schema.Boolean)
}) {}

/** The call took longer than the per-call timeout. */
export class ModelTimeoutError extends Schema.TaggedError<ModelTimeoutError>()("ModelTimeoutError", {
  promptId: Schema.String,
  timeoutMs: Schema.Number
}) {
  override get message() {
    return `the model did not answer within ${this.timeoutMs} ms (AEON_LLM_TIMEOUT_MS)`
  }
}

/** The endpoint could not be reached. */
export class ModelUnavailableError extends Schema.TaggedError<ModelUnavailableError>()("ModelUnavailableError", {
  message: Schema.String,
  /** Nothing listens there or the host is unknown, also on a second try: the run ends rather than ask again. */
  lasting: Schema.optional(Schema.Boolean)
}) {}

/** The model's answer is not the JSON the contract requires. Carries the raw text for repair. */
export class ModelDecodeError extends Schema.TaggedError<ModelDecodeError>()("ModelDecodeError", {
  promptId: Schema.String,
  raw: Schema.String,
  message: Schema.String
}) {}

/** The answer was cut at its output cap (finish_reason "length"), also after one retry with a larger cap. */
export class ModelTruncatedError extends Schema.TaggedError<ModelTruncatedError>()("ModelTruncatedError", {
  promptId: Schema.String,
  maxOutputTokens: Schema.Number
}) {
  override get message() {
    return `truncated: the answer reached its output cap of ${this.maxOutputTokens} tokens (finish_reason "length") and was not accepted`
  }
}

export type ModelError =
  | ModelHttpError
  | ModelTimeoutError
  | ModelUnavailableError
  | ModelDecodeError
  | ModelTruncatedError

/** A failure that retrying cannot fix: asking the same provider again in this run would fail the same way. */
export const isLasting = (e: { readonly _tag: string }): e is ModelHttpError | ModelUnavailableError =>
  (e instanceof ModelHttpError || e instanceof ModelUnavailableError) && e.lasting === true
