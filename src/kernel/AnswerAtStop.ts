/**
 * The answer a run ends with, at its stop (kernel/Orchestrator decides the stop): what it is made from, and how — none,
 * extractive, what failed, made with no call, or synthesized within the deadline and the budget.
 */
import { Duration, Effect } from "effect"
import type { FinalAnswer } from "../domain/Result.js"
import {
  answerRequirements,
  checkAnswer,
  extractive,
  outageAnswer,
  planAnswer,
  stepAnswer,
  synthesizeToCriteria
} from "./AnswerSynthesis.js"
import type { RunContext } from "./RunContext.js"
import { callSite } from "./RunLlm.js"
import type { currentState } from "./RunState.js"
import { labelOf, type Stop } from "./Stop.js"
import { brokenValue, directValue, synthesizeTyped } from "./TypedAnswer.js"

/** What the answer is made from: the run, its plan and how it stopped, its conversation and files. */
export const synthesisInputOf = (
  ctx: RunContext,
  st: Effect.Effect.Success<ReturnType<typeof currentState>>,
  stop: Stop,
  firstPass: number,
  startedAt: number
) => ({
  runId: ctx.runId,
  startedAt,
  totalRefinements: st.ledger.total,
  request: ctx.request,
  plan: st.plan,
  converged: stop.reason === "converged",
  label: labelOf(stop),
  totalPasses: st.passNumber - firstPass + 1,
  ttlRemaining: Math.max(0, st.ttlRemaining),
  conversation: ctx.events.record().conversation?.text || undefined,
  attachments: ctx.attachments
})

/**
 * The run's answer at its stop: none without an execution (a failed planning, a dry run, a cancel); extractive at the
 * deadline or when the provider failed; what failed when a tool cannot answer; made with no call when the plan or its
 * one step gives it; else synthesized (typed, to the schema), within the deadline and the budget.
 */
export const answerAt = (ctx: RunContext, stop: Stop, synthesisInput: ReturnType<typeof synthesisInputOf>) =>
  Effect.gen(function*() {
    const remaining = (yield* ctx.guard.remaining).deadlineMs
    const checked = (answer: FinalAnswer) => checkAnswer(answer, ctx.criteria)
    const answerInput = { ...synthesisInput, answerRequirements: answerRequirements(ctx.criteria) }
    const typed = ctx.outputSchema
    const single = ctx.singlePass === true
    const toolOutputs = ctx.events.record().attempt?.toolOutputs ?? {}
    // a typed run's answer made with no call: the plan's answer or its one step's, when it is a value of the schema
    const planned = typed ? planAnswer(answerInput, single, toolOutputs, { unreferenced: true }) : undefined
    const direct = typed
      ? directValue(typed, planned) ?? directValue(typed, stepAnswer(answerInput, single))
      : stepAnswer(answerInput, single) ?? planAnswer(answerInput, single, toolOutputs)
    // a tool that failed so that retrying cannot fix it: answered with what failed, no call
    const outage = stop.toolOutage ?? stop.toolFailed
    if (
      (stop.reason === "failed" && synthesisInput.plan.steps.length === 0) || stop.reason === "dry_run" ||
      stop.reason === "cancelled"
    ) return undefined
    if (stop.exhausted === "deadline") return checked(extractive(synthesisInput, "the deadline has passed"))
    if (outage !== undefined) return checked(outageAnswer(synthesisInput, outage))
    if (stop.unrecoverable) return checked(extractive(synthesisInput, `the model provider failed: ${stop.error}`))
    if (direct) return checked(direct)
    return yield* (typed
      ? synthesizeTyped(
        { ...synthesisInput, llm: ctx.llm },
        typed,
        answerInput.answerRequirements,
        brokenValue(typed, planned)
      ).pipe(Effect.map((t) => ({ ...checkAnswer(t.answer, ctx.criteria), violations: t.violations })))
      : synthesizeToCriteria({ ...synthesisInput, llm: ctx.llm }, ctx.criteria)).pipe(
        Effect.locally(callSite, { phase: "ANSWER" }),
        Effect.timeoutTo({
          duration: Duration.millis(remaining),
          onTimeout: () => checked(extractive(synthesisInput, "the deadline passed during synthesis")),
          onSuccess: (a) => a
        }),
        Effect.catchTags({
          BudgetExhaustedError: (e) =>
            Effect.succeed(checked(extractive(synthesisInput, `budget exhausted: ${e.message}`))),
          ProviderFailedError: (e) =>
            Effect.succeed(checked(extractive(synthesisInput, `the model provider failed: ${e.message}`)))
        })
      )
  })
