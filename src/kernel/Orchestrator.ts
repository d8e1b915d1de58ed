import { Effect } from "effect"
import * as AdaptiveDepth from "../adaptive/AdaptiveDepth.js"
import * as ConvergenceEngine from "../convergence/ConvergenceEngine.js"
import { liveSteps, type Plan } from "../domain/Plan.js"
import { needsReview } from "../domain/TextSignals.js"
import * as RecursivePlanner from "../planning/RecursivePlanner.js"
import { untrustedSteps } from "../record/Provenance.js"
import { guidanceGiven } from "../record/RunRecord.js"
import { traced } from "../telemetry/Span.js"
import * as SemanticValidator from "../validation/SemanticValidator.js"
import { answerAt, synthesisInputOf } from "./AnswerAtStop.js"
import { askGuidance } from "./Approval.js"
import { repeatedFailures } from "./Economy.js"
import { endPass, morePasses, passFinished } from "./PassBoundary.js"
import { executePass, readySteps } from "./PassSteps.js"
import { advise, fixMissingTools, generatePlan, shownTools } from "./PlanCall.js"
import { afterPlanning } from "./PlanGate.js"
import { planningStart, reusedPlanProfile, singlePassProfile } from "./PlanningStart.js"
import type { RunContext } from "./RunContext.js"
import { callSite } from "./RunLlm.js"
import { currentState as state, memoryNow, planNow, ttlRemainingNow } from "./RunState.js"
import { expiration, type Outcome, type Stop, withinDeadline } from "./Stop.js"
import { lastingFailureIn, repeatedOutage, toolOutageIn } from "./ToolOutage.js"
import { typedStop } from "./TypedAnswer.js"

export type { Outcome, Stop } from "./Stop.js"

/** Enters a phase: the event, then the phase's work inside a span carrying run, pass and phase. */
const inPhase = <A, E>(
  ctx: RunContext,
  passNumber: number,
  p: "PLAN" | "EXECUTE" | "EVALUATE" | "REFINE" | "RE_EXECUTE",
  work: Effect.Effect<A, E>
) =>
  ctx.events.emit({ _tag: "PhaseEntered", passNumber, phase: p }).pipe(
    Effect.zipRight(work),
    Effect.locally(callSite, { passNumber, phase: p }),
    traced(`Phase.${p}`, {
      captureStackTrace: false,
      attributes: { "aeon.run_id": ctx.runId, "aeon.pass": passNumber, "aeon.phase": p }
    })
  )

/** A refinement of `refined` takes effect through its events: the plan, ledger, advisories and questions it changed. */
const applyRefinement = (ctx: RunContext, passNumber: number, refined: Plan, outcome: RecursivePlanner.RefineOutcome) =>
  Effect.gen(function*() {
    const before = yield* state(ctx)
    if (
      outcome.plan !== refined || outcome.applied.length > 0 || outcome.advisories.length > 0 ||
      outcome.followUpQuestions.length > 0 || outcome.ledger !== before.ledger
    ) {
      yield* ctx.events.emit({
        _tag: "RefinementApplied",
        passNumber,
        actions: outcome.applied,
        plan: outcome.plan,
        advisories: outcome.advisories,
        ledger: outcome.ledger,
        followUpQuestions: outcome.followUpQuestions
      })
    }
    for (const m of outcome.manualInterventions) {
      // an interactive run asks a person instead, and waits; without an answer in time it is the advisory again
      const guidance = ctx.interactive ? yield* askGuidance(ctx, passNumber, m.stepId, m.reason) : ""
      if (guidance === "") {
        yield* ctx.events.emit({ _tag: "ManualInterventionRequired", passNumber, stepId: m.stepId, reason: m.reason })
      }
    }
  })

/** Pass 0: profile → depth → plan → validation → pre-execution refinement. */
const planPass = (ctx: RunContext, passNumber: number, resumed: boolean) =>
  Effect.gen(function*() {
    if (!resumed) yield* ctx.events.emit({ _tag: "PassStarted", passNumber, ttlRemaining: ctx.budget.ttl })
    yield* inPhase(ctx, passNumber, "PLAN", planPhase(ctx, passNumber))
    yield* passFinished(ctx, passNumber)
  })

const planPhase = (ctx: RunContext, passNumber: number) =>
  Effect.gen(function*() {
    const start = yield* planningStart(ctx, passNumber)
    const profiled: AdaptiveDepth.Profiled = start.reused
      ? reusedPlanProfile(ctx)
      : ctx.singlePass
      ? singlePassProfile()
      : yield* AdaptiveDepth.infer(ctx.request, ctx.budget.ttl, ctx.llm)
    yield* ctx.events.emit({
      _tag: "ProfileInferred",
      passNumber,
      profile: profiled.profile,
      depth: profiled.depth,
      ttlRemaining: profiled.depth.allocatedTtl
    })
    yield* advise(ctx, passNumber, profiled.advisories)
    const plan = start.reused ??
      (yield* fixMissingTools(
        ctx,
        passNumber,
        yield* generatePlan(ctx, passNumber, profiled.depth.reasoningMode, start)
      ))
    yield* ctx.events.emit({ _tag: "PlanCreated", passNumber, plan })
    // a plan repeating a call that timed out or lost its server will not run (executionPass ends the run): not reviewed
    if (repeatedOutage(plan, ctx.events.record(), passNumber)) return
    const report = yield* SemanticValidator.validatePlan(plan, {
      request: ctx.request,
      validationId: `${ctx.runId}-v${passNumber}`,
      tools: ctx.toolInfos,
      offered: shownTools(ctx, plan),
      llm: ctx.llm,
      // a plan that converged before: the deterministic checks decide before a model is asked
      checksFirst: checksFirst(ctx) || start.reused !== undefined
    })
    yield* ctx.events.emit({ _tag: "ValidationReported", passNumber, report })
    if (report.issues.length > 0 && !ctx.singlePass) {
      const st = yield* state(ctx)
      yield* applyRefinement(
        ctx,
        passNumber,
        plan,
        yield* RecursivePlanner.refine({
          request: ctx.request,
          plan,
          report,
          tools: ctx.toolInfos,
          offered: shownTools(ctx, plan),
          ledger: st.ledger,
          guidance: guidanceGiven(ctx.events.record()),
          untrusted: untrustedSteps(ctx.events.record().provenance),
          llm: ctx.llm
        })
      )
    }
  })

/** A simple iteration on a task the text signals do not call ambiguous: the checks decide before a model is asked. */
const checksFirst = (ctx: RunContext) => ctx.singlePass === true && !needsReview(ctx.request)

const candidateAnswer = (plan: Plan) =>
  liveSteps(plan.steps).filter((s) => s.status === "complete").map((s) => s.stepOutput).join("\n")

/** EVALUATE: cross-phase validation, then convergence on the validation report. */
const evaluate = (ctx: RunContext, passNumber: number, executed: Plan) =>
  Effect.gen(function*() {
    const vctx = {
      request: ctx.request,
      validationId: `${ctx.runId}-v${passNumber}`,
      tools: ctx.toolInfos,
      offered: shownTools(ctx, executed),
      llm: ctx.llm,
      checksFirst: checksFirst(ctx)
    }
    const memory = memoryNow(ctx)
    const report = yield* SemanticValidator.validateCrossPhase({ plan: executed, memory }, vctx)
    yield* ctx.events.emit({ _tag: "ValidationReported", passNumber, report })
    const assessment = yield* ConvergenceEngine.assess({
      request: ctx.request,
      plan: executed,
      report,
      criteria: ctx.criteria,
      candidateAnswer: candidateAnswer(executed),
      llm: ctx.llm,
      checksFirst: checksFirst(ctx)
    })
    yield* ctx.events.emit({ _tag: "ConvergenceAssessed", passNumber, assessment })
    return { report, assessment }
  })

/** Why the run stops, typed as such where it is decided (its `reason` a literal of Stop's, not a string). */
const stopped = (stop: Stop): Stop => stop

/** One execution pass: EXECUTE → EVALUATE → (converged? stop) → REFINE → pass boundary. */
const executionPass = (ctx: RunContext, passNumber: number, first: boolean, resumed = false) =>
  Effect.gen(function*() {
    const st = yield* state(ctx)
    if (resumed) {
      // the pass had started before a restart (or a fork's copy): its remaining steps run, the events continue the
      // same pass, its calls labeled with its phase as before
      const phase = first ? "EXECUTE" : "RE_EXECUTE"
      yield* executePass(ctx, passNumber, phase).pipe(Effect.locally(callSite, { passNumber, phase }))
    } else {
      if (st.ttlRemaining <= 0) return stopped({ reason: "ttl_expired", point: "phase_boundary" })
      if (readySteps(st.plan).length === 0) {
        return stopped({ reason: "stalled", error: "nothing left to execute and no refinement possible" })
      }
      // a plan that repeats a call which just timed out or lost its server is not executed again
      const repeat = repeatedOutage(st.plan, ctx.events.record(), passNumber)
      if (repeat) {
        return stopped({ reason: "failed", error: repeat.message, unrecoverable: true, toolOutage: repeat.message })
      }
      yield* ctx.events.emit({ _tag: "PassStarted", passNumber, ttlRemaining: st.ttlRemaining, plan: st.plan })
      const phase = first ? "EXECUTE" : "RE_EXECUTE"
      yield* inPhase(ctx, passNumber, phase, executePass(ctx, passNumber, phase))
    }
    const executed = planNow(ctx)
    // a tool failure retrying cannot fix, and no other tool to do its work: no model is asked to judge or refine it
    const outage = toolOutageIn(executed, ctx.toolInfos)
    if (outage) {
      return stopped({ reason: "failed", error: outage.message, unrecoverable: true, toolOutage: outage.message })
    }
    // a simple iteration whose tool timed out or lost its server did not pass: no model is asked to judge it
    const lasting = ctx.singlePass ? lastingFailureIn(executed) : undefined
    if (lasting) {
      return stopped({ reason: "stalled", error: lasting, toolFailed: lasting })
    }
    const { report, assessment } = yield* inPhase(ctx, passNumber, "EVALUATE", evaluate(ctx, passNumber, executed))
    if (assessment.converged) {
      yield* passFinished(ctx, passNumber)
      return stopped({ reason: "converged" })
    }
    // the same failures as the pass before (a tool refusing the same input): no refinement, no further pass
    const repeated = ctx.singlePass ? undefined : repeatedFailures(ctx.events.record(), passNumber)
    if (repeated) {
      return stopped({ reason: "stalled", error: repeated })
    }
    // no refinement when no pass is left to use it: the TTL is spent (an interactive run asks for more passes)
    if (!ctx.singlePass && (ttlRemainingNow(ctx) > 0 || (yield* morePasses(ctx, passNumber)))) {
      yield* inPhase(
        ctx,
        passNumber,
        "REFINE",
        state(ctx).pipe(
          Effect.flatMap((s2) =>
            RecursivePlanner.refine({
              request: ctx.request,
              plan: executed,
              report,
              assessment,
              tools: ctx.toolInfos,
              offered: shownTools(ctx, executed),
              ledger: s2.ledger,
              guidance: guidanceGiven(ctx.events.record()),
              untrusted: untrustedSteps(ctx.events.record().provenance),
              llm: ctx.llm
            })
          ),
          Effect.flatMap((outcome) => applyRefinement(ctx, passNumber, executed, outcome))
        )
      )
    }
    yield* endPass(ctx, passNumber)
    return undefined
  })

/** Where a run restarted after a crash picks up: the PLAN pass, a pass in progress, or the next pass. */
export type ResumePoint =
  | { readonly stage: "plan" }
  /** The last pass converged and finished before the process died: on to the answer. */
  | { readonly stage: "converged" }
  | { readonly stage: "execute"; readonly passNumber: number }
  /** The pass's refinement was applied: only its end was left. */
  | { readonly stage: "refined"; readonly passNumber: number }
  | { readonly stage: "boundary"; readonly nextPass: number }

const body = (ctx: RunContext, firstPass: number, resume?: ResumePoint) =>
  Effect.gen(function*() {
    let pass = firstPass + 1
    if (resume?.stage === "converged") return stopped({ reason: "converged" })
    if (!resume || resume.stage === "plan") yield* planPass(ctx, firstPass, resume !== undefined)
    else if (resume.stage === "boundary") pass = resume.nextPass
    else if (resume.stage === "refined") {
      yield* endPass(ctx, resume.passNumber)
      pass = resume.passNumber + 1
    } else {
      const stop = yield* executionPass(ctx, resume.passNumber, resume.passNumber === firstPass + 1, true)
      if (stop) return stop
      pass = resume.passNumber + 1
    }
    // the validated plan's forecast, a dry run's end, the plan's approval: before the first execution pass
    if (pass === firstPass + 1) {
      const stop = yield* afterPlanning(ctx, firstPass)
      if (stop) return stop
    }
    while (true) {
      const stop = yield* executionPass(ctx, pass, pass === firstPass + 1)
      if (stop) return stop
      pass++
    }
  })

/** How the passes stopped: their own stop, a budget's, a failed planning's, a provider's, or the deadline's. */
const stopOf = (ctx: RunContext, firstPass: number, resume: ResumePoint | undefined) => {
  const deadline: Stop = {
    reason: "budget_exhausted",
    point: "mid_phase",
    exhausted: "deadline",
    error: `deadline of ${ctx.budget.deadlineMs} ms reached`
  }
  return body(ctx, firstPass, resume).pipe(
    Effect.catchTags({
      BudgetExhaustedError: (e) =>
        Effect.succeed<Stop>({
          reason: "budget_exhausted",
          point: "mid_phase",
          exhausted: e.dimension,
          error: e.message
        }),
      PlanFailedError: (e) => Effect.succeed<Stop>({ reason: "failed", error: e.message }),
      ProviderFailedError: (e) => Effect.succeed<Stop>({ reason: "failed", error: e.message, unrecoverable: true })
    }),
    (self) => withinDeadline(ctx, self, deadline)
  )
}

/** A multi-pass run (or one simple iteration) from pass `firstPass`, to a stop and a final answer. */
export const orchestrate = (ctx: RunContext, firstPass: number, startedAt: number, resume?: ResumePoint) =>
  Effect.gen(function*() {
    const stop: Stop = yield* stopOf(ctx, firstPass, resume)
    const st = yield* state(ctx)
    const ttlExpiration = stop.reason === "ttl_expired" || stop.reason === "budget_exhausted"
      ? expiration(st, stop)
      : undefined
    const synthesized = yield* answerAt(ctx, stop, synthesisInputOf(ctx, st, stop, firstPass, startedAt))
    const typed = ctx.outputSchema
    const finalAnswer = synthesized?.answer
    // the criteria were judged on the step outputs; say so when the synthesized answer itself falls short of them
    const missed = synthesized?.missed ?? []
    const advisory = missed.length > 0
      ? `the final answer fails answer criteria the step outputs met: ${missed.join(", ")}`
      : undefined
    return {
      stop: typed ? typedStop(stop, finalAnswer, synthesized?.violations ?? []) : stop,
      finalAnswer: finalAnswer && advisory
        ? { ...finalAnswer, notes: [finalAnswer.notes, advisory].filter(Boolean).join(" ") }
        : finalAnswer,
      ttlExpiration,
      // what the answer's calls said (a format stepped down) is the run's too
      state: { ...st, advisories: [...(yield* state(ctx)).advisories, ...(advisory ? [advisory] : [])] },
      nextPass: st.passNumber + 1
    } satisfies Outcome
  }).pipe(
    traced("Orchestrator.orchestrate", { captureStackTrace: false, attributes: { "aeon.run_id": ctx.runId } })
  )
