import { Config, Context, Effect, FiberRef, Layer } from "effect"
import { type BudgetExhaustedError, ProviderFailedError } from "../domain/Errors.js"
import type { RunEventBody } from "../domain/RunEvent.js"
import type { RunJournal } from "../journal/RunJournal.js"
import { phaseOf } from "../llm/ByPhase.js"
import * as CallLayers from "../llm/CallLayers.js"
import type * as LanguageModel from "../llm/LanguageModel.js"
import type { Llm } from "../llm/Llm.js"
import { isLasting, ModelDecodeError } from "../llm/ModelErrors.js"
import { ANSWER_PROMPTS, PromptId } from "../prompts/PromptId.js"
import * as Supervisor from "../supervisor/Supervisor.js"
import { extend } from "../support/Extend.js"
import type { BudgetGuard, CallHold, Reserved } from "./BudgetGuard.js"

const REPAIR_PROMPTS: ReadonlyArray<string> = [
  PromptId.SUPERVISOR_REPAIR_JSON_USER,
  PromptId.SUPERVISOR_REPAIR_PLAN_USER,
  PromptId.SUPERVISOR_REPAIR_TOOLCALL_USER,
  PromptId.SUPERVISOR_REPAIR_MISSINGTOOL_USER
]

/** Where an answer call's text goes while the run's output guardrails hold it back: nowhere (it is recorded). */
const HELD_BACK = { push: () => Effect.void, done: Effect.void }

/** Whether runs record each model call's prompt and answer (AEON_RECORD_PROMPTS; on when the service is absent). */
export class PromptRecording extends Context.Tag("aeon/PromptRecording")<PromptRecording, {
  readonly enabled: boolean
}>() {}

export const recordingLayerConfig = Layer.effect(
  PromptRecording,
  Config.boolean("AEON_RECORD_PROMPTS").pipe(
    Config.withDescription("Record every model call's prompt and answer with the run (0 to turn off)"),
    Config.withDefault(true),
    Effect.map((enabled) => ({ enabled })),
    Effect.orDie
  )
)

/** Where in the run a model call is made: set by the kernel around each phase and step. */
export interface CallSite {
  readonly passNumber?: number
  readonly phase?: string
  readonly stepId?: string
}
export const callSite = FiberRef.unsafeMake<CallSite>({})

/** The call's usage in the run's record (what the guard reads), its hold released, its quota settled. */
const recordCall =
  (guard: BudgetGuard, events: RunJournal) =>
  (promptId: string, usage: LanguageModel.CallUsage, hold: CallHold, reserved: Array<Reserved>) =>
    FiberRef.get(callSite).pipe(
      Effect.flatMap((site) =>
        Effect.zipRight(
          events.emit(llmCalled(promptId, usage, site)),
          usage.notice
            ? events.emit({ _tag: "AdvisoryRaised", passNumber: site.passNumber ?? 0, advisory: usage.notice })
            : Effect.void
        )
      ),
      Effect.ensuring(Effect.sync(() => guard.release(hold))),
      Effect.zipRight(
        guard.quota
          ? guard.quota.settle(reserved.splice(0), {
            costUsd: usage.replayed ? 0 : usage.costUsd,
            tokens: usage.replayed ? 0 : usage.inputTokens + usage.outputTokens
          })
          : Effect.void
      ),
      // usage reported above what was admitted: recorded (above), and the run stops at its budget
      Effect.zipRight(guard.overrun)
    )

/** A call's options with the run's own: its thinking budget; its instructions for a plan or answer call. */
const callOptionsOf =
  (run: { readonly thinkingTokens?: number | undefined; readonly instructions?: string | undefined }) =>
  (promptId: string, options: LanguageModel.GenerateOptions | undefined) => {
    const phase = phaseOf(promptId)
    const instructed = run.instructions !== undefined && (phase === "plan" || phase === "answer")
    if (!run.thinkingTokens && !instructed) return options
    return {
      ...options,
      ...(run.thinkingTokens ? { thinkingTokens: run.thinkingTokens } : {}),
      ...(instructed ? { instructions: run.instructions } : {})
    }
  }

/**
 * The model as one run uses it: its provider wrapped once (llm/CallLayers) — every call admitted by the run's budget
 * and its user's quota, recorded as an LlmCalled event, its text live —, a malformed answer handed to the supervisor
 * (never replaced by a default), and a failure retrying cannot fix ending the run.
 */
export const make = (
  model: LanguageModel.Service,
  guard: BudgetGuard,
  events: RunJournal,
  recordPrompts = true,
  run: {
    /** The run's thinking budget a call (its input's thinkingTokens), reserved in every call's cap. */
    readonly thinkingTokens?: number | undefined
    /** The operator's instructions (its input's), in the system prompt of the plan and answer calls. */
    readonly instructions?: string | undefined
    /**
     * The run's output guardrails on its answer calls: their text is not streamed live (the answer comes whole once
     * it passed), and their record holds what the guardrails would not let out (guardrails/).
     */
    readonly answerGuard?: { readonly kept: <A>(value: A) => A } | undefined
  } = {}
): Llm => {
  const live = CallLayers.liveText((promptId) =>
    run.answerGuard && ANSWER_PROMPTS.includes(promptId)
      ? Effect.succeed(HELD_BACK)
      : Effect.flatMap(
        FiberRef.get(callSite),
        (site) => events.openOutput({ promptId, passNumber: site.passNumber, stepId: site.stepId })
      )
  )
  const around: LanguageModel.Around<BudgetExhaustedError> = (send) => (call) => {
    // what the call could use, held from its admission to its record beside the calls made at once; what it
    // reserved of its user's quota, settled when its usage is recorded
    const hold = guard.hold()
    const reserved: Array<Reserved> = []
    const quota = guard.quota
    const budget = CallLayers.admission({
      admit: quota
        ? (e) => Effect.zipRight(guard.admitCall(e, hold), Effect.map(quota.reserve(e), (r) => void reserved.push(r)))
        : (e) => guard.admitCall(e, hold),
      moreBudget: guard.moreBudget,
      tokensLeft: Effect.map(guard.remainingBeside(hold), (r) => r.tokens),
      requestsLeft: () => guard.requestsLeft(hold),
      onRequest: () => void hold.requests++
    })
    const recorded = CallLayers.recording((usage) => record(call.contract.id, usage, hold, reserved))
    return budget(recorded(live(send)))(call).pipe(Effect.ensuring(Effect.sync(() => guard.release(hold))))
  }
  const record = recordCall(guard, events)
  const answerGuard = run.answerGuard
  const runModel = model.wrapped(around, {
    recordExchanges: recordPrompts,
    keptOf: answerGuard && ((promptId) => (ANSWER_PROMPTS.includes(promptId) ? answerGuard.kept : undefined))
  })
  const callOptions = callOptionsOf(run)
  const llm: Llm = {
    label: model.label,
    generate: (contract, input, options) =>
      runModel.generate(contract, input, callOptions(contract.id, options)).pipe(
        // a failure retrying cannot fix halts the run: asking the same provider again would fail the same way
        Effect.catchIf(isLasting, (e) => Effect.fail(new ProviderFailedError({ message: e.message }))),
        Effect.catchTag("ModelDecodeError", (error) =>
          REPAIR_PROMPTS.includes(contract.id)
            ? Effect.fail(error)
            : Supervisor.repairAnswer(contract, error, llm).pipe(
              Effect.map((r) => ({
                output: r.value,
                text: error.raw,
                usage: { model: model.label, inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs: 0 }
              })),
              Effect.catchTag("RepairFailedError", (r) =>
                Effect.fail(
                  new ModelDecodeError({
                    promptId: contract.id,
                    raw: error.raw,
                    message: `${error.message} — repair failed: ${r.message}`
                  })
                ))
            ))
      )
  }
  return llm
}

/** A call's LlmCalled event: its usage, where in the run it was made, its exchange when recorded. */
const llmCalled = (
  promptId: string,
  usage: LanguageModel.CallUsage,
  site: CallSite
): RunEventBody => ({
  _tag: "LlmCalled",
  promptId,
  model: usage.model,
  inputTokens: usage.inputTokens,
  outputTokens: usage.outputTokens,
  ...(usage.cachedTokens ? { cachedTokens: usage.cachedTokens } : {}),
  ...(usage.cacheWriteTokens ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
  costUsd: usage.costUsd,
  latencyMs: usage.latencyMs,
  ...(usage.requests !== undefined && usage.requests !== 1 ? { requests: usage.requests } : {}),
  ...(usage.error ? { error: usage.error } : {}),
  ...(usage.estimated ? { estimated: true } : {}),
  ...(usage.failedModels ? { failedModels: usage.failedModels } : {}),
  ...(usage.replayed ? { replayed: true } : {}),
  ...(usage.repeats !== undefined ? { repeats: usage.repeats } : {}),
  ...(usage.exchange ? { call: extend(site, usage.exchange) } : {})
})
