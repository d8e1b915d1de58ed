import { Schema } from "effect"

export const RunMode = Schema.Literal("AUTO", "SIMPLE", "FULL")
export type RunMode = typeof RunMode.Type

export const TestStatus = Schema.Literal("passed", "failed", "error")

export const SimpleIterationRecord = Schema.Struct({
  iteration: Schema.Int.pipe(Schema.filter((n) => n >= 1 || "iteration must be >= 1")),
  changeSummary: Schema.String,
  testStatus: TestStatus,
  failedTests: Schema.Array(Schema.String),
  errorMessages: Schema.Array(Schema.String),
  durationMs: Schema.Number.pipe(Schema.filter((n) => n >= 0 || "durationMs must be >= 0")),
  costUsd: Schema.Number.pipe(Schema.filter((n) => n >= 0 || "costUsd must be >= 0")),
  /** Every step of the iteration was blocked: the model said it cannot do it (an abstention, not a failure). */
  abstained: Schema.optional(Schema.Boolean)
}).pipe(
  Schema.filter((r) =>
    r.testStatus !== "error" || r.errorMessages.length > 0 ||
    "an iteration with testStatus error must keep its error messages"
  ),
  Schema.filter((r) =>
    r.testStatus !== "failed" || r.failedTests.length > 0 ||
    "an iteration with testStatus failed must name its failed tests"
  )
)
export type SimpleIterationRecord = typeof SimpleIterationRecord.Type

export const FailureSummary = Schema.Struct({
  totalIterations: Schema.Int,
  totalDurationMs: Schema.Number,
  totalCostUsd: Schema.Number,
  records: Schema.Array(SimpleIterationRecord),
  uniqueErrors: Schema.Array(Schema.Struct({ signature: Schema.String, count: Schema.Int, example: Schema.String })),
  finalTestState: Schema.Array(Schema.String),
  /**
   * Why more depth cannot help, when it cannot (AUTO does not escalate then): the model abstained on every
   * iteration, a tool gave the same refusal every time, a tool failed so that retrying cannot fix it (its server
   * gone, its timeout run out) with no other tool to do its work, or the provider cannot serve the run.
   */
  cause: Schema.optional(Schema.Literal("abstained", "tool_refused", "tool_unavailable", "provider_failed")),
  summary: Schema.String.pipe(
    Schema.filter((s) => (s.length > 0 && s.length <= 2000) || "summary must be 1..2000 characters")
  )
}).pipe(
  Schema.filter((f) => f.totalIterations === f.records.length || "totalIterations must equal the number of records")
)
export type FailureSummary = typeof FailureSummary.Type

export const EscalationEvent = Schema.Struct({
  reason: Schema.String.pipe(Schema.filter((s) => s.length > 0 || "escalation reason must be non-empty")),
  iterationsRun: Schema.Int,
  remainingBudget: Schema.Record({ key: Schema.String, value: Schema.Number }),
  failureSummary: FailureSummary
})
export type EscalationEvent = typeof EscalationEvent.Type
