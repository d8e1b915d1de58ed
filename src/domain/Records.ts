import { Schema } from "effect"

const Unit = (name: string) =>
  Schema.Number.pipe(Schema.filter((n) => (n >= 0 && n <= 1) || `${name} must be between 0.0 and 1.0 (was ${n})`))
const IsoTime = Schema.String.pipe(
  Schema.filter((s) => !Number.isNaN(Date.parse(s)) || `timestamp must be ISO 8601 (was ${s})`)
)

/** One step execution or one tool call of a run (stored in reasoning_traces.steps). */
export const ReasoningStep = Schema.Struct({
  stepNumber: Schema.Int.pipe(Schema.filter((n) => n >= 1 || "stepNumber must be >= 1")),
  timestamp: IsoTime,
  thought: Schema.NullOr(Schema.String),
  toolName: Schema.NullOr(Schema.String),
  toolInput: Schema.NullOr(Schema.Unknown),
  toolOutput: Schema.NullOr(Schema.Unknown),
  durationMs: Schema.Int.pipe(Schema.filter((n) => n >= 0 || "durationMs must be a non-negative integer")),
  status: Schema.Literal("success", "failed", "skipped"),
  planStepId: Schema.optional(Schema.String)
}).pipe(
  Schema.filter((s) =>
    s.toolName === null || s.status === "failed" || (s.toolInput !== null && s.toolOutput !== null) ||
    "a successful tool step must have toolInput and toolOutput"
  )
)
export type ReasoningStep = typeof ReasoningStep.Type

export const ReasoningTrace = Schema.Struct({
  id: Schema.String,
  sessionId: Schema.String,
  steps: Schema.Array(ReasoningStep),
  totalSteps: Schema.Int,
  createdAt: IsoTime
}).pipe(Schema.filter((t) => t.totalSteps === t.steps.length || "totalSteps must equal the number of trace steps"))
export type ReasoningTrace = typeof ReasoningTrace.Type

export const ExecutionMetadata = Schema.Struct({
  stepsTaken: Schema.Int,
  toolCallCounts: Schema.Record({ key: Schema.String, value: Schema.Int }),
  thinkingTimeMs: Schema.Number,
  toolExecutionTimeMs: Schema.Number,
  totalTimeMs: Schema.Number,
  errorCount: Schema.Int,
  successRate: Unit("successRate")
})
export type ExecutionMetadata = typeof ExecutionMetadata.Type

export const TaskDependency = Schema.Struct({
  sourceTaskId: Schema.String,
  targetTaskId: Schema.String,
  relationshipType: Schema.Literal("prerequisite", "blocks", "related"),
  confidence: Unit("confidence"),
  detectionMethod: Schema.Literal("ai_inference", "stored_relationship", "plan")
}).pipe(
  Schema.filter((d) =>
    d.sourceTaskId !== d.targetTaskId || "a task cannot depend on itself (sourceTaskId = targetTaskId)"
  )
)
export type TaskDependency = typeof TaskDependency.Type

export const ExecutionWave = Schema.Struct({
  waveNumber: Schema.Int.pipe(Schema.filter((n) => n >= 1 || "waveNumber must be a positive integer")),
  taskIds: Schema.Array(Schema.String).pipe(Schema.filter((a) => a.length > 0 || "a wave must hold at least one task")),
  parallelExecution: Schema.Boolean,
  estimatedDurationHours: Schema.NullOr(Schema.Number)
})
export type ExecutionWave = typeof ExecutionWave.Type

export const PrioritizedTaskPlan = Schema.Struct({
  orderedTaskIds: Schema.Array(Schema.String).pipe(
    Schema.filter((a) => a.length > 0 || "orderedTaskIds must not be empty")
  ),
  executionWaves: Schema.Array(ExecutionWave),
  dependencies: Schema.Array(TaskDependency),
  confidenceScores: Schema.Record({ key: Schema.String, value: Unit("confidence score") }),
  synthesisSummary: Schema.String
}).pipe(
  Schema.filter((p) => {
    const ids = new Set(p.orderedTaskIds)
    const keys = Object.keys(p.confidenceScores)
    if (keys.length !== ids.size || keys.some((k) => !ids.has(k))) {
      return "confidenceScores keys must match orderedTaskIds"
    }
    const inWaves = p.executionWaves.flatMap((w) => w.taskIds)
    if (new Set(inWaves).size !== inWaves.length) return "executionWaves must not overlap"
    if (inWaves.length !== ids.size || inWaves.some((t) => !ids.has(t))) {
      return "executionWaves must cover all orderedTaskIds (no orphaned tasks)"
    }
    for (let i = 0; i < p.executionWaves.length; i++) {
      if (p.executionWaves[i]!.waveNumber !== i + 1) return "waveNumber must run 1..N in order"
    }
    return true
  })
)
export type PrioritizedTaskPlan = typeof PrioritizedTaskPlan.Type

export const SessionStatus = Schema.Literal("running", "completed", "failed")

export const AgentSession = Schema.Struct({
  id: Schema.String,
  userId: Schema.String,
  runId: Schema.String,
  status: SessionStatus,
  prioritizedPlan: Schema.NullOr(PrioritizedTaskPlan),
  executionMetadata: ExecutionMetadata,
  createdAt: IsoTime,
  updatedAt: IsoTime
}).pipe(
  Schema.filter((s) =>
    (s.status === "completed") === (s.prioritizedPlan !== null) ||
    "prioritizedPlan is required when status is completed, and null otherwise"
  )
)
export type AgentSession = typeof AgentSession.Type
