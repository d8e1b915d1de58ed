import { Effect, Either, Schema } from "effect"
import { liveSteps, type Plan } from "../domain/Plan.js"
import { FinalAnswerFor, PhaseEInput, type FinalAnswer } from "../domain/Result.js"
import { isModelFailure, type Llm } from "../llm/Llm.js"
import type { BudgetExhaustedError } from "../domain/Errors.js"
import { Contracts } from "../prompts/PromptRegistry.js"

export interface SynthesisInput {
  readonly runId: string
  readonly startedAt: number
  readonly totalRefinements: number
  readonly request: string
  readonly plan: Plan
  readonly converged: boolean
  /** "converged", "non-converged", "ttl_exhausted", … shown to the model and kept on the answer. */
  readonly label: string
  readonly totalPasses: number
  readonly ttlRemaining: number
  /** Absent when no model call may be made (deadline passed, budget spent). */
  readonly llm?: Llm | undefined
  readonly whyNoModel?: string | undefined
}

/** Without a model call: the completed steps' outputs, said to be exactly that. */
export const extractive = (input: SynthesisInput, why: string): FinalAnswer => {
  const used = liveSteps(input.plan.steps).filter((s) => s.status === "complete" && s.stepOutput !== "")
  return {
    answerText: used.length > 0 ? used.map((s) => s.stepOutput).join("\n") : `No step completed for: ${input.request}`,
    confidence: 0,
    usedStepIds: used.map((s) => s.stepId),
    notes: `Not synthesized by the model (${why}): these are the completed steps' outputs.`,
    converged: input.converged,
    ttlExhausted: input.label === "ttl_exhausted",
    label: input.label
  }
}

/** Phase E: the final answer from the executed steps; labeled when the run did not converge. */
export const synthesize = (input: SynthesisInput): Effect.Effect<FinalAnswer, BudgetExhaustedError> => {
  if (!input.llm) return Effect.succeed(extractive(input, input.whyNoModel ?? "no model call allowed"))
  const steps = liveSteps(input.plan.steps)
  const stepIds = input.plan.steps.map((s) => s.stepId)
  // the final execution state as the design documents' PhaseEInput, checked before it reaches the prompt
  const phaseE: PhaseEInput = Schema.decodeUnknownSync(PhaseEInput)({
    request: input.request,
    executionResults: steps.map((s) => ({ stepId: s.stepId, description: s.description, status: s.status, stepOutput: s.stepOutput })),
    planState: input.plan,
    convergenceAssessment: { converged: input.converged, label: input.label },
    correlationId: input.runId,
    executionStartTimestamp: new Date(input.startedAt).toISOString(),
    convergenceStatus: input.converged,
    totalPasses: input.totalPasses,
    totalRefinements: input.totalRefinements,
    ttlRemaining: input.ttlRemaining
  })
  return input.llm.generate(Contracts.answerSynthesis, {
    request: phaseE.request,
    executionResults: phaseE.executionResults,
    convergenceStatus: phaseE.convergenceStatus,
    label: input.label,
    totalPasses: phaseE.totalPasses,
    ttlRemaining: phaseE.ttlRemaining
  }).pipe(
    Effect.map(({ output }): FinalAnswer => {
      const unknown = output.usedStepIds.filter((id) => !stepIds.includes(id))
      const answer = {
        answerText: output.answerText.trim() === "" ? extractive(input, "the model answered an empty text").answerText : output.answerText,
        confidence: Math.max(0, Math.min(1, output.confidence)),
        usedStepIds: output.usedStepIds.filter((id) => stepIds.includes(id)),
        notes: [output.notes, unknown.length > 0 ? `dropped usedStepIds that name no step: ${unknown.join(", ")}` : undefined].filter(Boolean).join(" ") || undefined,
        converged: input.converged,
        ttlExhausted: input.label === "ttl_exhausted",
        label: input.label
      }
      return Either.getOrThrow(Schema.decodeUnknownEither(FinalAnswerFor(stepIds))(answer))
    }),
    Effect.catchIf(isModelFailure, (e) => Effect.succeed(extractive(input, `answer synthesis failed: ${e._tag}`))),
    Effect.withSpan("AnswerSynthesis.synthesize", { captureStackTrace: false })
  ) as Effect.Effect<FinalAnswer, BudgetExhaustedError>
}
