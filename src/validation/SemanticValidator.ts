import { Effect } from "effect"
import type { RunHalt } from "../domain/Errors.js"
import { makeReport, type SemanticValidationReport, SEVERITY_RANK, type ValidationIssue } from "../domain/Evaluation.js"
import type { Plan } from "../domain/Plan.js"
import { isModelFailure, type Llm } from "../llm/Llm.js"
import { Contracts } from "../prompts/PromptRegistry.js"
import { promptPlan } from "../prompts/PromptViews.js"
import { fieldOf } from "../support/Fields.js"
import { memoizeWeak } from "../support/Memoize.js"
import { traced } from "../telemetry/Span.js"
import type { Tool } from "../tools/ToolRegistry.js"
import { completeness } from "./Completeness.js"
import { checkPlan, type PlanLike, stem, type ToolInfo, words } from "./DeterministicChecks.js"

export const toolInfos = memoizeWeak((tools: ReadonlyArray<Tool>): ReadonlyArray<ToolInfo> =>
  tools.map((t) => ({ name: t.name, description: t.description, operations: t.operations }))
)

export interface ValidationContext {
  readonly request: string
  readonly validationId: string
  readonly tools: ReadonlyArray<ToolInfo>
  /** The tools the model's review is shown by name (a large catalog's offer, planning/ToolCatalog); absent: all. */
  readonly offered?: ReadonlyArray<string> | undefined
  /** Absent: deterministic checks only. */
  readonly llm?: Llm | undefined
  /**
   * The checks decide first: when they find nothing above LOW severity (and, after execution, no failed or invalid
   * step), the model's review is not asked (a simple iteration's economy).
   */
  readonly checksFirst?: boolean | undefined
}

export interface CrossPhaseInput {
  readonly plan: Plan
  readonly finalAnswer?: string | undefined
  readonly memory?: ReadonlyMap<string, unknown> | undefined
}

export interface Service {
  /** Deterministic checks merged with the model's; a model failure leaves the deterministic report plus an advisory. */
  readonly validatePlan: (
    plan: PlanLike,
    context: ValidationContext
  ) => Effect.Effect<SemanticValidationReport, RunHalt>
  /** FR-041: plan ↔ executed steps ↔ final answer ↔ memory. */
  readonly validateCrossPhase: (
    input: CrossPhaseInput,
    context: ValidationContext
  ) => Effect.Effect<SemanticValidationReport, RunHalt>
}

// issues on different steps are never one issue; plan-wide issues (no step) are one only when they say the same
const key = (i: Omit<ValidationIssue, "issueId">) =>
  `${i.type}|${i.location?.stepId ?? `plan:${i.description.toLowerCase()}`}`

/** Merges issue lists: one issue per (type, step), keeping the more severe, deterministic first. */
export const mergeIssues = (
  validationId: string,
  ...lists: ReadonlyArray<ReadonlyArray<Omit<ValidationIssue, "issueId">>>
): Array<ValidationIssue> => {
  const byKey = new Map<string, Omit<ValidationIssue, "issueId">>()
  for (const list of lists) {
    for (const i of list) {
      const existing = byKey.get(key(i))
      if (!existing || SEVERITY_RANK[i.severity] > SEVERITY_RANK[existing.severity]) {
        byKey.set(key(i), existing ? { ...i, source: existing.source } : i)
      }
    }
  }
  return [...byKey.values()].map((i, n) => ({ ...i, issueId: `${validationId}-${n + 1}` }))
}

const modelIssues = (
  plan: PlanLike,
  context: ValidationContext,
  artifactType: string,
  known: ReadonlyArray<Omit<ValidationIssue, "issueId">>,
  finalAnswer?: string
): Effect.Effect<
  { issues: Array<Omit<ValidationIssue, "issueId">>; advisories: Array<string> },
  RunHalt
> => {
  if (!context.llm) return Effect.succeed({ issues: [], advisories: [] })
  const stepIds = new Set(plan.steps.map((s) => s.stepId))
  /** The plan's step a model named: its id, in any case, "step 2" / 2 for the second step, "Step s2". */
  const stepNamed = (named: string | undefined): string | undefined => {
    if (named === undefined) return undefined
    if (stepIds.has(named)) return named
    const bare = named.trim().replace(/^step\s*/i, "")
    const exact = plan.steps.find((s) => s.stepId.toLowerCase() === bare.toLowerCase())
    if (exact) return exact.stepId
    return /^\d+$/.test(bare) ? plan.steps.find((s) => s.stepIndex === Number(bare))?.stepId : undefined
  }
  return context.llm.generate(Contracts.validation, {
    request: context.request,
    artifactType,
    plan: promptPlan(plan),
    tools: [...context.offered ?? context.tools.map((t) => t.name)],
    finalAnswer,
    knownIssues: known.map((k) => `${k.type} ${k.location?.stepId ?? ""}: ${k.description}`)
  }).pipe(
    Effect.map(({ output }) => ({
      issues: output.issues.map((i) => {
        const stepId = stepNamed(i.stepId)
        return {
          type: i.type,
          severity: i.severity,
          // a step the plan does not have is said in the description rather than kept as a dangling location
          description: (i.description.trim() || `${i.type} issue reported by the model`) +
            (i.stepId !== undefined && stepId === undefined ? ` (on "${i.stepId}", not a step of the plan)` : ""),
          ...(stepId ? { location: { stepId } } : {}),
          ...(i.proposedRepair ? { proposedRepair: { action: i.proposedRepair, target: stepId ?? "plan" } } : {}),
          source: "model" as const
        }
      }),
      advisories: (output.unreadable ?? []).map((u) => `model validation issue not understood, kept as said: ${u}`)
    })),
    Effect.catchIf(
      isModelFailure,
      (e) =>
        Effect.succeed({
          issues: [],
          advisories: [`model validation unavailable (${e._tag}: ${e.message}); deterministic checks only`]
        })
    )
  )
}

/** Cross-phase checks that need no model. */
export const crossPhaseChecks = (input: CrossPhaseInput): Array<Omit<ValidationIssue, "issueId">> => {
  const found: Array<Omit<ValidationIssue, "issueId">> = []
  for (const s of input.plan.steps) {
    if (s.status === "complete" && s.stepOutput.trim() === "") {
      found.push({
        type: "consistency",
        severity: "HIGH",
        description: `step ${s.stepId} is complete but produced no output`,
        location: { stepId: s.stepId },
        source: "deterministic"
      })
    }
    if (s.status === "complete") {
      const unmet = s.dependencies.filter((d) => input.plan.steps.find((o) => o.stepId === d)?.status !== "complete")
      if (unmet.length > 0) {
        found.push({
          type: "consistency",
          severity: "CRITICAL",
          description: `step ${s.stepId} completed before its dependencies ${unmet.join(", ")}`,
          location: { stepId: s.stepId },
          source: "deterministic"
        })
      }
    }
  }
  if (input.finalAnswer !== undefined) {
    const answer = new Set(words(input.finalAnswer).map(stem))
    const outputs = input.plan.steps.filter((s) => s.status === "complete" && s.stepOutput.trim() !== "")
    const numbersIn = (t: string): Array<string> => t.match(/-?\d+(?:\.\d+)?/g) ?? []
    const answerNumbers = new Set(numbersIn(input.finalAnswer))
    const outputNumbers = new Set(outputs.flatMap((s) => numbersIn(s.stepOutput)))
    const goalNumbers: ReadonlyArray<string> = numbersIn(input.plan.goal)
    const invented = [...answerNumbers].filter((n) => !outputNumbers.has(n) && !goalNumbers.includes(n))
    if (outputs.length > 0 && invented.length > 0) {
      found.push({
        type: "hallucination",
        severity: "MEDIUM",
        description: `the final answer states numbers no step produced: ${invented.join(", ")}`,
        location: { artifactReference: "finalAnswer" },
        source: "deterministic"
      })
    }
    if (outputs.length > 0 && !outputs.some((s) => words(s.stepOutput).some((w) => answer.has(stem(w))))) {
      found.push({
        type: "consistency",
        severity: "HIGH",
        description: "the final answer uses none of the executed steps' outputs",
        location: { artifactReference: "finalAnswer" },
        source: "deterministic"
      })
    }
  }
  if (input.memory) {
    for (const s of input.plan.steps) {
      const k = fieldOf(s.toolInput, "key")
      if (s.tool === "memory.write" && s.status === "complete" && typeof k === "string" && !input.memory.has(k)) {
        found.push({
          type: "consistency",
          severity: "HIGH",
          description: `step ${s.stepId} wrote "${k}" to memory but memory does not hold it`,
          location: { stepId: s.stepId },
          source: "deterministic"
        })
      }
    }
  }
  return found
}

/** Whether the checks' findings decide alone: nothing above LOW severity, and no step that failed or is invalid. */
const checksDecide = (
  context: ValidationContext,
  found: ReadonlyArray<Omit<ValidationIssue, "issueId">>,
  plan: PlanLike
) =>
  context.checksFirst === true && found.every((i) => i.severity === "LOW") &&
  plan.steps.every((s) => !("status" in s) || (s.status !== "failed" && s.status !== "invalid"))

/** The report of one scope: the deterministic findings, and the model's unless the checks decide alone. */
const reportOf = (
  scope: "plan" | "cross_phase",
  plan: PlanLike,
  context: ValidationContext,
  deterministic: ReadonlyArray<Omit<ValidationIssue, "issueId">>,
  finalAnswer?: string
) =>
  Effect.gen(function*() {
    const byChecks = checksDecide(context, deterministic, plan)
    const model = byChecks
      ? { issues: [], advisories: [] }
      : yield* modelIssues(plan, context, scope, deterministic, finalAnswer)
    return makeReport(
      context.validationId,
      scope,
      mergeIssues(context.validationId, deterministic, model.issues),
      model.advisories,
      byChecks || !context.llm ? "checks" : "model"
    )
  })

export const validatePlan: Service["validatePlan"] = (plan, context) =>
  reportOf("plan", plan, context, [...checkPlan(plan, context.tools), ...completeness(context.request, plan)]).pipe(
    traced("SemanticValidator.validatePlan", { captureStackTrace: false })
  )

export const validateCrossPhase: Service["validateCrossPhase"] = (input, context) =>
  reportOf("cross_phase", input.plan, context, [
    ...checkPlan(input.plan, context.tools),
    ...completeness(context.request, input.plan),
    ...crossPhaseChecks(input)
  ], input.finalAnswer).pipe(traced("SemanticValidator.validateCrossPhase", { captureStackTrace: false }))
