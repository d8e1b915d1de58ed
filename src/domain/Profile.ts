import { Schema } from "effect"

const Unit = (name: string) =>
  Schema.Number.pipe(Schema.filter((n) => (n >= 0 && n <= 1) || `${name} must be between 0.0 and 1.0 (was ${n})`))

export const ExpectedToolUsage = Schema.Literal("none", "minimal", "moderate", "extensive")
export const OutputBreadth = Schema.Literal("narrow", "moderate", "broad")
export const ConfidenceRequirement = Schema.Literal("low", "medium", "high")

export const TaskProfileDimensions = Schema.Struct({
  reasoningDepth: Schema.Int.pipe(
    Schema.filter((n) => (n >= 1 && n <= 5) || `reasoningDepth must be between 1 and 5 (was ${n})`)
  ),
  informationSufficiency: Unit("informationSufficiency"),
  expectedToolUsage: ExpectedToolUsage,
  outputBreadth: OutputBreadth,
  confidenceRequirement: ConfidenceRequirement,
  rawInference: Schema.String.pipe(
    Schema.filter((s) => s.trim().length > 0 || "rawInference must be a non-empty string")
  )
})
export type TaskProfileDimensions = typeof TaskProfileDimensions.Type

export const TaskProfile = Schema.Struct({
  profileVersion: Schema.Int.pipe(Schema.filter((n) => n >= 1 || "profileVersion must be >= 1")),
  ...TaskProfileDimensions.fields
})
export type TaskProfile = typeof TaskProfile.Type

export const DetectedComplexity = Schema.Literal("very_low", "low", "moderate", "high", "very_high")
export const ReasoningMode = Schema.Literal("deep", "shallow", "balanced")

export const AdaptiveDepthConfiguration = Schema.Struct({
  detectedComplexity: DetectedComplexity,
  ambiguityScore: Schema.optional(Unit("ambiguityScore")),
  uncertaintyScore: Schema.optional(Unit("uncertaintyScore")),
  allocatedTtl: Schema.Int.pipe(Schema.filter((n) => n >= 0 || "allocatedTtl must be >= 0")),
  globalTtlCap: Schema.Int,
  reasoningMode: ReasoningMode,
  adjustmentReason: Schema.String.pipe(
    Schema.filter((s) => s.trim().length > 0 || "adjustmentReason must be a non-empty string")
  ),
  heuristicsUsed: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
}).pipe(
  Schema.filter((c) =>
    c.allocatedTtl <= c.globalTtlCap || `allocatedTtl ${c.allocatedTtl} must be <= the global TTL cap ${c.globalTtlCap}`
  )
)
export type AdaptiveDepthConfiguration = typeof AdaptiveDepthConfiguration.Type
