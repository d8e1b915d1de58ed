import { Effect } from "effect"
import type { RunHalt } from "../domain/Errors.js"
import type { ConvergenceAssessment, SemanticValidationReport, Severity } from "../domain/Evaluation.js"
import { liveSteps, type Plan } from "../domain/Plan.js"
import { isModelFailure, type Llm } from "../llm/Llm.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import { promptPlan } from "../prompts/PromptViews.js"
import { traced } from "../telemetry/Span.js"
import { stem, words } from "../validation/DeterministicChecks.js"
import { failedAnswerPredicates } from "./AnswerPredicates.js"
import type { ConvergenceCriteria } from "./Criteria.js"

export interface AssessInput {
  readonly request: string
  readonly plan: Plan
  /** Consumed directly (FR-050): its issues lower coherence and name contradictions. */
  readonly report: SemanticValidationReport
  readonly criteria: ConvergenceCriteria
  /** The answer as it stands (final answer, or the step outputs before synthesis). */
  readonly candidateAnswer: string
  readonly llm?: Llm | undefined
  /**
   * The engine's own criteria decide first: when they pass on a report the checks decided alone, the model's
   * assessment is not asked (a simple iteration's economy); anything else asks it as usual.
   */
  readonly checksFirst?: boolean | undefined
}

export interface Service {
  readonly assess: (input: AssessInput) => Effect.Effect<ConvergenceAssessment, RunHalt>
}

const PENALTY: Record<Severity, number> = { LOW: 0.05, MEDIUM: 0.15, HIGH: 0.3, CRITICAL: 0.6 }

/** Scores that need no model: from step statuses, clarity and the validation report. */
export const deterministicScores = (plan: Plan, report: SemanticValidationReport, candidateAnswer: string) => {
  const steps = liveSteps(plan.steps)
  const credit = steps.reduce(
    (n, s) => n + (s.status !== "complete" ? 0 : s.clarityState === "PARTIALLY_CLEAR" ? 0.5 : 1),
    0
  )
  const completenessScore = steps.length === 0 ? 0 : credit / steps.length
  const penalty = report.issues
    .filter((i) => i.type === "consistency" || i.type === "hallucination" || i.type === "do_say_mismatch")
    .reduce((n, i) => n + PENALTY[i.severity], 0)
  const coherenceScore = Math.max(0, Math.min(1, 1 - penalty))
  const outputs = steps.filter((s) => s.status === "complete" && s.stepOutput.trim() !== "")
  const answerWords = new Set(words(candidateAnswer).map(stem))
  const consistencyStatus = {
    allStepsExecuted: steps.length > 0 && steps.every((s) => s.status !== "pending" && s.status !== "running"),
    noFailedSteps: steps.every((s) => s.status !== "failed" && s.status !== "invalid"),
    answerUsesSteps: outputs.length === 0 ?
      false
      : outputs.some((s) =>
        candidateAnswer.includes(s.stepOutput.trim()) || words(s.stepOutput).some((w) => answerWords.has(stem(w)))
      )
  }
  return { completenessScore, coherenceScore, consistencyStatus }
}

export const assess: Service["assess"] = (input) =>
  Effect.gen(function*() {
    if (input.checksFirst && input.report.decidedBy === "checks") {
      const byChecks = yield* assessWith({ ...input, llm: undefined })
      if (byChecks.converged) return { ...byChecks, decidedBy: "checks" as const }
    }
    return { ...(yield* assessWith(input)), decidedBy: input.llm ? "model" as const : "checks" as const }
  }).pipe(traced("ConvergenceEngine.assess", { captureStackTrace: false }))

/** What the model judged of the run, when it could be asked (its failure is a note: the checks then decide alone). */
interface ModelJudgement {
  readonly completenessScore: number
  readonly coherenceScore: number
  readonly converged: boolean
  readonly reasonCodes: ReadonlyArray<string>
  readonly detectedIssues: ReadonlyArray<string>
  readonly reasoning: string
}

const modelJudgement = (input: AssessInput, notes: Array<string>) =>
  input.llm === undefined
    ? Effect.succeed(undefined)
    : input.llm.generate(Contracts.convergence, {
      request: input.request,
      plan: promptPlan(input.plan),
      validationSummary: input.report.issues.length === 0
        ? "no issues"
        : input.report.issues.map((i) => `${i.severity} ${i.type} ${i.location?.stepId ?? ""}: ${i.description}`)
          .join("\n"),
      completenessThreshold: input.criteria.completenessThreshold,
      coherenceThreshold: input.criteria.coherenceThreshold
    }).pipe(
      Effect.map(({ output }): ModelJudgement | undefined => ({
        completenessScore: clamp(output.completenessScore),
        coherenceScore: clamp(output.coherenceScore),
        converged: output.converged,
        reasonCodes: output.reasonCodes ?? [],
        detectedIssues: output.detectedIssues ?? [],
        reasoning: output.reasoning
      })),
      Effect.catchIf(isModelFailure, (e) => {
        notes.push(`model assessment unavailable (${e.message}); deterministic scores only`)
        return Effect.succeed(undefined)
      })
    )

/** The criteria the run fails, on the stricter of the checks' and the model's scores. */
const failedCriteria = (
  input: AssessInput,
  det: ReturnType<typeof deterministicScores>,
  scores: { readonly completenessScore: number; readonly coherenceScore: number },
  model: ModelJudgement | undefined
) => {
  const failed: Array<string> = []
  if (scores.completenessScore < input.criteria.completenessThreshold) failed.push("incomplete")
  if (scores.coherenceScore < input.criteria.coherenceThreshold) failed.push("incoherent")
  if (input.criteria.requireConsistency && Object.values(det.consistencyStatus).some((ok) => !ok)) {
    failed.push("inconsistent")
  }
  if (!det.consistencyStatus.noFailedSteps) failed.push("failed_steps")
  if (liveSteps(input.plan.steps).some((s) => s.status === "pending")) failed.push("missing_step")
  if (input.report.issues.some((i) => i.type === "consistency" && i.severity === "CRITICAL")) {
    failed.push("contradiction_detected")
  }
  failed.push(...failedAnswerPredicates(input.criteria, input.candidateAnswer))
  if (model && !model.converged) {
    failed.push(
      ...(model.reasonCodes.length > 0 ? model.reasonCodes.map((c) => `model:${c}`) : ["model_not_converged"])
    )
  }
  return failed
}

/** The assessment on the engine's criteria, the model's too when `llm` is given (the stricter of the two wins). */
const assessWith = (input: AssessInput) =>
  Effect.gen(function*() {
    const det = deterministicScores(input.plan, input.report, input.candidateAnswer)
    const notes: Array<string> = []
    const model = yield* modelJudgement(input, notes)
    // the stricter of the two judgements wins: a model cannot talk a failing run into converging
    const completenessScore = Math.min(det.completenessScore, model?.completenessScore ?? 1)
    const coherenceScore = Math.min(det.coherenceScore, model?.coherenceScore ?? 1)
    const failed = failedCriteria(input, det, { completenessScore, coherenceScore }, model)
    const reasonCodes = failed.length === 0
      ? ["complete", ...(model?.reasonCodes ?? []).filter((c) => c !== "complete")]
      : failed
    for (const required of input.criteria.requiredReasonCodes) {
      if (!reasonCodes.includes(required)) failed.push(`required_reason_code_missing:${required}`)
    }
    const converged = failed.length === 0
    return {
      converged,
      reasonCodes: converged ? reasonCodes : [...new Set(failed)],
      failedCriteria: [...new Set(failed)],
      scores: { completenessScore, coherenceScore, consistencyStatus: det.consistencyStatus },
      explanation: [
        `completeness ${completenessScore.toFixed(2)} (threshold ${input.criteria.completenessThreshold}), coherence ${
          coherenceScore.toFixed(2)
        } (threshold ${input.criteria.coherenceThreshold})`,
        converged ? "all criteria met" : `failed: ${[...new Set(failed)].join(", ")}`,
        ...(model ? [`model: ${model.reasoning}`] : []),
        ...notes
      ].join("; "),
      detectedIssues: [
        ...input.report.issues.map((i) => `${i.type}: ${i.description}`),
        ...(model?.detectedIssues ?? [])
      ]
    } satisfies ConvergenceAssessment
  })

const clamp = (n: number) => (Number.isFinite(n) ? Math.max(0, Math.min(1, n)) : 0)
