import { Schema } from "effect"

const Score = (name: string) =>
  Schema.Number.pipe(Schema.filter((n) => (n >= 0 && n <= 1) || `${name} must be between 0.0 and 1.0 (was ${n})`))

export const IssueType = Schema.Literal(
  "specificity",
  "relevance",
  "consistency",
  "hallucination",
  "do_say_mismatch",
  "completeness"
)
export type IssueType = typeof IssueType.Type
export const ISSUE_TYPES: ReadonlyArray<IssueType> = IssueType.literals

export const Severity = Schema.Literal("LOW", "MEDIUM", "HIGH", "CRITICAL")
export type Severity = typeof Severity.Type
export const SEVERITY_RANK: Record<Severity, number> = { LOW: 0, MEDIUM: 1, HIGH: 2, CRITICAL: 3 }

export const ValidationIssue = Schema.Struct({
  issueId: Schema.String,
  type: IssueType,
  severity: Severity,
  description: Schema.String.pipe(Schema.filter((s) => s.trim().length > 0 || "issue description must be non-empty")),
  location: Schema.optional(
    Schema.Struct({ stepId: Schema.optional(Schema.String), artifactReference: Schema.optional(Schema.String) })
  ),
  proposedRepair: Schema.optional(
    Schema.Struct({ action: Schema.String, target: Schema.String, changes: Schema.optional(Schema.Unknown) })
  ),
  source: Schema.optional(Schema.Literal("deterministic", "model"))
})
export type ValidationIssue = typeof ValidationIssue.Type

export const ArtifactType = Schema.Literal("plan", "step", "execution_artifact", "cross_phase")

export const IssueSummary = Schema.Struct({
  specificity: Schema.Int,
  relevance: Schema.Int,
  consistency: Schema.Int,
  hallucination: Schema.Int,
  do_say_mismatch: Schema.Int,
  /** Absent in reports stored before completeness was checked: none. */
  completeness: Schema.optionalWith(Schema.Int, { default: () => 0 })
})
export type IssueSummary = typeof IssueSummary.Type

export const highestSeverity = (issues: ReadonlyArray<{ readonly severity: Severity }>): Severity =>
  issues.reduce<Severity>((acc, i) => (SEVERITY_RANK[i.severity] > SEVERITY_RANK[acc] ? i.severity : acc), "LOW")

export const summarize = (issues: ReadonlyArray<{ readonly type: IssueType }>): IssueSummary => {
  const counts = { specificity: 0, relevance: 0, consistency: 0, hallucination: 0, do_say_mismatch: 0, completeness: 0 }
  for (const i of issues) counts[i.type]++
  return counts
}

export const SemanticValidationReport = Schema.Struct({
  validationId: Schema.String,
  artifactType: ArtifactType,
  issues: Schema.Array(ValidationIssue),
  overallSeverity: Severity,
  issueSummary: IssueSummary,
  proposedRepairs: Schema.optional(Schema.Array(Schema.Unknown)),
  advisories: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** Who decided: the deterministic checks alone (no model review was asked) or with the model's review. */
  decidedBy: Schema.optional(Schema.Literal("checks", "model"))
}).pipe(
  Schema.filter((r) => {
    const ids = new Set(r.issues.map((i) => i.issueId))
    if (ids.size !== r.issues.length) return "issueId must be unique within the validation report"
    const expected = highestSeverity(r.issues)
    if (r.overallSeverity !== expected) {
      return `overallSeverity must equal the highest issue severity (${expected}), was ${r.overallSeverity}`
    }
    const counts = summarize(r.issues)
    for (const k of ISSUE_TYPES) {
      if (counts[k] !== r.issueSummary[k]) {
        return `issueSummary.${k} must equal the number of ${k} issues (${counts[k]}), was ${r.issueSummary[k]}`
      }
    }
    return true
  })
)
export type SemanticValidationReport = typeof SemanticValidationReport.Type

/** Builds a report whose summary and severity are derived from its issues, so they cannot disagree. */
export const makeReport = (
  validationId: string,
  artifactType: typeof ArtifactType.Type,
  issues: ReadonlyArray<ValidationIssue>,
  advisories: ReadonlyArray<string> = [],
  decidedBy?: "checks" | "model"
): SemanticValidationReport => ({
  validationId,
  artifactType,
  issues,
  overallSeverity: highestSeverity(issues),
  issueSummary: summarize(issues),
  advisories,
  ...(decidedBy ? { decidedBy } : {})
})

export const ConvergenceAssessment = Schema.Struct({
  converged: Schema.Boolean,
  reasonCodes: Schema.Array(Schema.String).pipe(
    Schema.filter((a) => a.length > 0 || "reasonCodes must be a non-empty array")
  ),
  scores: Schema.Struct({
    completenessScore: Score("completenessScore"),
    coherenceScore: Score("coherenceScore"),
    consistencyStatus: Schema.Record({ key: Schema.String, value: Schema.Boolean })
  }),
  explanation: Schema.String,
  detectedIssues: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  failedCriteria: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** Who decided: the engine's own criteria alone (no model assessment was asked) or with the model's. */
  decidedBy: Schema.optional(Schema.Literal("checks", "model"))
}).pipe(
  Schema.filter((a) =>
    a.converged || a.failedCriteria.length > 0 || a.reasonCodes.some((c) => c !== "complete" && c !== "converged") ||
    "when not converged, reasonCodes must name the failed criteria"
  )
)
export type ConvergenceAssessment = typeof ConvergenceAssessment.Type
