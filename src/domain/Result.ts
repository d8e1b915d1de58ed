import { Schema } from "effect"

export const TerminationReason = Schema.Literal(
  "converged",
  "ttl_expired",
  "budget_exhausted",
  "cancelled",
  "stalled",
  "failed",
  /** Planned and forecast only (run input dryRun): nothing executed. */
  "dry_run"
)
export type TerminationReason = typeof TerminationReason.Type

export const TtlExpiredMetadata = Schema.Struct({
  completenessScore: Schema.Number,
  coherenceScore: Schema.Number,
  consistencyStatus: Schema.Record({ key: Schema.String, value: Schema.Boolean }),
  detectedIssues: Schema.Array(Schema.String),
  reasonCodes: Schema.Array(Schema.String),
  passNumber: Schema.Int
})

export const PassResult = Schema.Struct({
  passNumber: Schema.Int,
  stepOutputs: Schema.Record({ key: Schema.String, value: Schema.String }),
  /** Tool results of the pass, kept also for a step abandoned after its tool completed. */
  toolResults: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), {
    default: () => ({})
  }),
  /** The first step abandoned mid-way (kept for readers of one id); every one is in abandonedStepIds. */
  abandonedStepId: Schema.optional(Schema.String),
  abandonedStepIds: Schema.optional(Schema.Array(Schema.String))
})
export type PassResult = typeof PassResult.Type

export const TTLExpirationResponse = Schema.Struct({
  converged: Schema.Literal(false),
  resultType: Schema.Literal("ttl_expired"),
  expirationPoint: Schema.Literal("phase_boundary", "mid_phase"),
  latestPassResult: Schema.optional(PassResult),
  partialResult: Schema.optional(PassResult),
  ttlExpiredMetadata: TtlExpiredMetadata,
  terminationReason: Schema.Literal("ttl_expired"),
  /** Which budget ran out (ttl, deadline, cost, tokens, llmCalls, steps). */
  exhausted: Schema.optional(Schema.String)
}).pipe(
  Schema.filter((r) =>
    r.expirationPoint !== "phase_boundary" || r.latestPassResult !== undefined ||
    "latestPassResult must be present when expirationPoint is phase_boundary"
  ),
  Schema.filter((r) =>
    r.expirationPoint !== "mid_phase" || r.latestPassResult !== undefined || r.partialResult !== undefined ||
    "partialResult must be present when expirationPoint is mid_phase and no pass completed"
  )
)
export type TTLExpirationResponse = typeof TTLExpirationResponse.Type

const NonNegative = (name: string) => Schema.Int.pipe(Schema.filter((n) => n >= 0 || `${name} must be >= 0`))

export const PhaseEInput = Schema.Struct({
  request: Schema.String.pipe(Schema.filter((s) => s.length > 0 || "request is required")),
  executionResults: Schema.Array(
    Schema.Struct({
      stepId: Schema.String,
      description: Schema.String,
      status: Schema.String,
      stepOutput: Schema.String
    })
  ),
  planState: Schema.Unknown,
  convergenceAssessment: Schema.Unknown,
  executionPasses: Schema.optional(Schema.Array(Schema.Unknown)),
  semanticValidation: Schema.optional(Schema.Unknown),
  taskProfile: Schema.optional(Schema.Unknown),
  correlationId: Schema.String,
  executionStartTimestamp: Schema.String.pipe(
    Schema.filter((s) => !Number.isNaN(Date.parse(s)) || "executionStartTimestamp must be a valid ISO time")
  ),
  convergenceStatus: Schema.Boolean,
  totalPasses: NonNegative("totalPasses"),
  totalRefinements: NonNegative("totalRefinements"),
  ttlRemaining: NonNegative("ttlRemaining")
})
export type PhaseEInput = typeof PhaseEInput.Type

export const FinalAnswerFields = Schema.Struct({
  answerText: Schema.String.pipe(Schema.filter((s) => s.trim().length > 0 || "answerText must be a non-empty string")),
  confidence: Schema.optional(
    Schema.Number.pipe(Schema.filter((n) => (n >= 0 && n <= 1) || `confidence must be between 0.0 and 1.0 (was ${n})`))
  ),
  usedStepIds: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  notes: Schema.optional(Schema.String),
  ttlExhausted: Schema.optional(Schema.Boolean),
  converged: Schema.optional(Schema.Boolean),
  label: Schema.optional(Schema.String),
  /** The answer as a value of the run's output schema (run input outputSchema), validated; absent otherwise. */
  data: Schema.optional(Schema.Unknown),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type FinalAnswer = typeof FinalAnswerFields.Type

/** A FinalAnswer is checked against the plan it was synthesized from: usedStepIds must exist. */
export const FinalAnswerFor = (stepIds: ReadonlyArray<string>) =>
  FinalAnswerFields.pipe(
    Schema.filter((a) => {
      const unknown = a.usedStepIds.filter((id) => !stepIds.includes(id))
      return unknown.length === 0 || `usedStepIds must name steps of the plan; unknown: ${unknown.join(", ")}`
    })
  )
export const FinalAnswer = FinalAnswerFields
