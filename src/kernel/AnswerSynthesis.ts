import { Effect, Either, Schema } from "effect"
import { failedAnswerPredicates } from "../convergence/AnswerPredicates.js"
import type { ConvergenceCriteria } from "../convergence/Criteria.js"
import type { Attached } from "../domain/Attachment.js"
import type { RunHalt } from "../domain/Errors.js"
import { liveSteps, type Plan } from "../domain/Plan.js"
import { FinalAnswer, PhaseEInput } from "../domain/Result.js"
import { isModelFailure, type Llm } from "../llm/Llm.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import { referencesIn, resolveReferences } from "../record/References.js"
import { traced } from "../telemetry/Span.js"

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
  /** What the run's criteria require of the answer text (shown to the model). */
  readonly answerRequirements?: string | undefined
  /** The conversation the run is a turn of, as memory/Conversation quotes it (ConversationQuoted). */
  readonly conversation?: string | undefined
  /** The task's files and images: the answer's call carries them. */
  readonly attachments?: ReadonlyArray<Attached> | undefined
}

/** Without a model call: the completed steps' outputs, said to be exactly that. */
export const extractive = (input: SynthesisInput, why: string): FinalAnswer => {
  const used = liveSteps(input.plan.steps).filter((s) => s.status === "complete" && s.stepOutput.trim() !== "")
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

/**
 * The answer of a run a tool failure stopped (kernel/ToolOutage): what failed, first, then what the completed steps
 * found — no model call (another could not make the tool answer).
 */
export const outageAnswer = (input: SynthesisInput, outage: string): FinalAnswer => {
  const done = extractive(input, "a tool failed")
  return {
    ...done,
    answerText: done.usedStepIds.length > 0
      ? `Not done: ${outage}.\nWhat the completed steps found:\n${done.answerText}`
      : `Not done: ${outage}.`,
    notes: "Not synthesized by the model: a tool failed so that retrying cannot fix it."
  }
}

/**
 * A converged simple iteration whose plan is one step the model answered (no tool) and whose criteria ask nothing of
 * the answer's text: that step's output is the answer — a synthesis call would restate it. Undefined otherwise.
 */
export const stepAnswer = (input: SynthesisInput, singlePass: boolean): FinalAnswer | undefined => {
  const steps = liveSteps(input.plan.steps)
  const only = steps.length === 1 ? steps[0] : undefined
  if (!singlePass || !input.converged || input.answerRequirements !== undefined || !only) return undefined
  if (only.tool !== undefined || only.status !== "complete" || only.stepOutput.trim() === "") return undefined
  return {
    answerText: only.stepOutput,
    usedStepIds: [only.stepId],
    notes: "The plan's one step answered the task: its output is the answer (no synthesis call).",
    converged: true,
    label: input.label
  }
}

/**
 * A converged simple iteration whose plan carries its answer (the planner's, with `{{sN}}` for the steps' results),
 * whose criteria ask nothing of the answer's text and whose every step completed: that answer with the results filled
 * in — a synthesis call would write the same. Undefined when a reference does not resolve, or names no step.
 */
export const planAnswer = (
  input: SynthesisInput,
  singlePass: boolean,
  toolOutputs: Readonly<Record<string, unknown>>,
  options: { readonly unreferenced?: boolean } = {}
): FinalAnswer | undefined => {
  const template = input.plan.answer
  if (!singlePass || !input.converged || input.answerRequirements !== undefined || template === undefined) {
    return undefined
  }
  const steps = liveSteps(input.plan.steps)
  const referenced = [...new Set(referencesIn(template).map((path) => path.split(".")[0] ?? path))]
  // `unreferenced`: an answer naming no step stands on the completed steps (a typed run checks it against its schema)
  const used = referenced.length === 0 && options.unreferenced ? steps.map((s) => s.stepId) : referenced
  if (used.length === 0 || steps.some((s) => s.status !== "complete")) return undefined
  const filled = resolveReferences(template, input.plan.steps, toolOutputs)
  // a template that is one reference is that value: a number or a truth value is its text
  const text = Either.isLeft(filled)
    ? undefined
    : typeof filled.right === "number" || typeof filled.right === "boolean"
    ? String(filled.right)
    : filled.right
  if (typeof text !== "string" || text.trim() === "") return undefined
  return {
    answerText: text,
    usedStepIds: used,
    notes: "The plan's answer with the steps' results filled in (no synthesis call).",
    converged: true,
    label: input.label
  }
}

const decodeFinalAnswer = Schema.decodeUnknownEither(FinalAnswer)

/** Phase E: the final answer from the executed steps; labeled when the run did not converge. */
export const synthesize = (input: SynthesisInput): Effect.Effect<FinalAnswer, RunHalt> => {
  if (!input.llm) return Effect.succeed(extractive(input, "no model call allowed"))
  const steps = liveSteps(input.plan.steps)
  const stepIds = input.plan.steps.map((s) => s.stepId)
  // the final execution state as the design documents' PhaseEInput, checked before it reaches the prompt
  const phaseE: PhaseEInput = Schema.decodeUnknownSync(PhaseEInput)({
    request: input.request,
    executionResults: steps.map((s) => ({
      stepId: s.stepId,
      description: s.description,
      status: s.status,
      stepOutput: s.stepOutput
    })),
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
    ttlRemaining: phaseE.ttlRemaining,
    answerRequirements: input.answerRequirements,
    ...(input.conversation ? { conversation: input.conversation } : {})
  }, input.attachments?.length ? { attachments: input.attachments } : {}).pipe(
    Effect.map(({ output }): FinalAnswer => {
      const unknown = output.usedStepIds.filter((id) => !stepIds.includes(id))
      const answer = {
        answerText: output.answerText.trim() === ""
          ? extractive(input, "the model answered an empty text").answerText
          : output.answerText,
        confidence: Math.max(0, Math.min(1, output.confidence)),
        usedStepIds: output.usedStepIds.filter((id) => stepIds.includes(id)),
        notes: [
          output.notes,
          unknown.length > 0 ? `dropped usedStepIds that name no step: ${unknown.join(", ")}` : undefined
        ].filter(Boolean).join(" ") || undefined,
        converged: input.converged,
        ttlExhausted: input.label === "ttl_exhausted",
        label: input.label
      }
      // usedStepIds are filtered to the plan's above, so FinalAnswerFor(stepIds)'s own rule holds: checked with the one
      // static schema (a schema made per run is a new AST, its parser built again each time)
      return Either.getOrThrow(decodeFinalAnswer(answer))
    }),
    Effect.catchIf(isModelFailure, (e) => Effect.succeed(extractive(input, `answer synthesis failed: ${e._tag}`))),
    traced("AnswerSynthesis.synthesize", { captureStackTrace: false })
  )
}

/** The answer predicates of the criteria in words, for the synthesis prompt; undefined when there are none. */
export const answerRequirements = (criteria: ConvergenceCriteria): string | undefined => {
  const musts = [
    ...(criteria.answerMatches !== undefined ? [`match the regular expression /${criteria.answerMatches}/`] : []),
    ...(criteria.answerMentions.length > 0
      ? [`mention ${criteria.answerMentions.map((t) => JSON.stringify(t)).join(", ")}`]
      : []),
    ...(criteria.answerSchema !== undefined
      ? [`be a JSON document valid against this JSON Schema: ${JSON.stringify(criteria.answerSchema)}`]
      : [])
  ]
  return musts.length > 0 ? musts.join("; ") : undefined
}

export interface CheckedAnswer {
  readonly answer: FinalAnswer
  /** The predicates the answer still fails (empty when it meets them all). */
  readonly missed: ReadonlyArray<string>
  /** A typed answer's: what in the model's last value breaks the output schema (kernel/TypedAnswer). */
  readonly violations?: ReadonlyArray<string> | undefined
}

/** An answer with the answer predicates of the criteria it fails. */
export const checkAnswer = (answer: FinalAnswer, criteria: ConvergenceCriteria): CheckedAnswer => ({
  answer,
  missed: failedAnswerPredicates(criteria, answer.answerText)
})

/**
 * Phase E against the run's answer criteria: the requirements go into the prompt; an answer that still
 * misses them is synthesized once more with what it missed (when a model call is allowed). The answer
 * that misses fewer predicates is kept, the first on a tie.
 */
export const synthesizeToCriteria = (
  input: SynthesisInput,
  criteria: ConvergenceCriteria
): Effect.Effect<CheckedAnswer, RunHalt> =>
  Effect.gen(function*() {
    const requirements = answerRequirements(criteria)
    const first = checkAnswer(yield* synthesize({ ...input, answerRequirements: requirements }), criteria)
    if (first.missed.length === 0 || !input.llm || requirements === undefined) return first
    const failed = first.missed.join(", ")
    const feedback = `${requirements}. An earlier answer failed ${failed}: ${
      JSON.stringify(first.answer.answerText.slice(0, 500))
    }`
    const second = yield* synthesize({ ...input, answerRequirements: feedback }).pipe(
      Effect.map((answer) => checkAnswer(answer, criteria)),
      Effect.catchTags({
        BudgetExhaustedError: () => Effect.succeed(undefined),
        ProviderFailedError: () => Effect.succeed(undefined)
      })
    )
    if (!second || second.missed.length >= first.missed.length) return first
    return {
      ...second,
      answer: {
        ...second.answer,
        notes: [second.answer.notes, `synthesized again: the first answer failed ${failed}`].filter(Boolean).join(" ")
      }
    }
  })
