import { Clock, Config, Context, Duration, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import {
  ApprovalAlreadyAnsweredError,
  ApprovalInputError,
  ApprovalNotFoundError,
  RunNotWaitingError
} from "../domain/Errors.js"
import type { Plan, PlanStep, ToolStep } from "../domain/Plan.js"
import type { ApprovalDecision, RunEvent, RunEventBody } from "../domain/RunEvent.js"
import { loadPolicy, type UntrustedPolicy } from "../domain/UntrustedPolicy.js"
import type { RunJournal } from "../journal/RunJournal.js"
import { editPlan } from "../planning/PlanEdit.js"
import { attemptPlan, toolCallInput } from "../record/Attempt.js"
import { type Steering, steering } from "../record/Provenance.js"
import { capsRefusal } from "../record/Requests.js"
import { type AnsweredEvent, type AskedEvent, pendingApprovals, type RunRecord } from "../record/RunRecord.js"
import { actsOutside, type Tool, ToolFailedError, ToolRegistry } from "../tools/ToolRegistry.js"
import { toolInfos } from "../validation/SemanticValidator.js"
import type { RunContext } from "./RunContext.js"

/**
 * Tools whose calls wait for a person's approval in every run: names, or `*` for every tool with side effects (not
 * idempotent) or marked destructive.
 */
export class ApprovalPolicy extends Context.Tag("aeon/ApprovalPolicy")<ApprovalPolicy, {
  readonly tools: ReadonlyArray<string>
  /** Every run's validated plan waits for a person's approval before it executes. */
  readonly plans?: boolean | undefined
  /** A call untrusted data steered waits for a person (approve, the default) or fails its step (fail). */
  readonly untrustedCalls?: "approve" | "fail" | undefined
  /** Every run takes its tools' outputs as trusted (the opt-out; a run's input may say so for itself). */
  readonly toolOutputs?: "trusted" | "untrusted" | undefined
  /** What arguments may take from untrusted data (AEON_UNTRUSTED_POLICY), recorded in each run's first event. */
  readonly untrustedPolicy?: UntrustedPolicy | undefined
}>() {}

/**
 * `AEON_APPROVAL_TOOLS` (comma-separated; empty: none), `AEON_APPROVE_PLAN` (true: every run's plan),
 * `AEON_UNTRUSTED_CALLS` (approve | fail) and `AEON_TOOL_OUTPUTS` (untrusted | trusted).
 */
export const layerConfig = Layer.effect(
  ApprovalPolicy,
  Config.all({
    tools: Config.string("AEON_APPROVAL_TOOLS").pipe(Config.withDefault("")),
    plans: Config.boolean("AEON_APPROVE_PLAN").pipe(Config.withDefault(false)),
    untrustedCalls: Config.literal("approve", "fail")("AEON_UNTRUSTED_CALLS").pipe(
      Config.withDescription(
        "A call with side effects that untrusted data steered: approve (wait for a person) or fail"
      ),
      Config.withDefault("approve" as const)
    ),
    toolOutputs: Config.literal("untrusted", "trusted")("AEON_TOOL_OUTPUTS").pipe(
      Config.withDescription("trusted: runs take their tools' outputs as trusted (no call is held for them)"),
      Config.withDefault("untrusted" as const)
    ),
    policyFile: Config.option(
      Config.string("AEON_UNTRUSTED_POLICY").pipe(
        Config.withDescription("A JSON file: per tool and argument, what may come from untrusted data")
      )
    )
  }).pipe(
    Effect.orDie,
    Effect.flatMap(({ policyFile, tools, ...rest }) =>
      Effect.map(
        Option.match(policyFile, { onNone: () => Effect.succeed(undefined), onSome: loadPolicy }),
        (untrustedPolicy) => ({
          tools: tools.split(",").map((t) => t.trim()).filter((t) => t !== ""),
          ...rest,
          ...(untrustedPolicy ? { untrustedPolicy } : {})
        })
      )
    )
  )
)

/** Whether a call of `tool` with `input` waits for approval: the tool says so, or the run's list names it. */
export const needsApproval = (tool: Tool, input: unknown, names: ReadonlyArray<string>) =>
  tool.needsApproval === true ||
  (typeof tool.needsApproval === "function" && tool.needsApproval(input)) ||
  names.includes(tool.name) ||
  (names.includes("*") && (!tool.idempotent || tool.destructive === true))

type Answered = Extract<RunEvent, { _tag: "ApprovalAnswered" }>
/** Why a person's answer is refused: the run is not waiting, no such request, or it was answered already. */
export type AnswerError = RunNotWaitingError | ApprovalNotFoundError | ApprovalAlreadyAnsweredError

/** This step's request for this call in this pass, if asked already (before a restart, say). */
const approvalFor = (r: RunRecord, passNumber: number, stepId: string, input: unknown) => {
  const text = JSON.stringify(input)
  return [...r.requests.values()].find(({ request: q }) =>
    q._tag === "ApprovalRequested" && q.passNumber === passNumber && q.stepId === stepId &&
    JSON.stringify(q.input) === text
  )
}

/**
 * Whether untrusted data steered the call (record/Provenance): only a call with side effects outside the run is
 * judged (a read-only call never waits for it), and none of a run that trusts its tools' outputs.
 */
const steeredCall = (ctx: RunContext, tool: Tool, step: PlanStep, input: unknown) => {
  const r = ctx.events.record()
  if (!actsOutside(tool) || r.attempt === undefined) return undefined
  return steering(r.provenance, step, attemptPlan(r.attempt).steps, r.attempt.toolOutputs, input)
}

/**
 * The tool of a call that asks a person first, and the untrusted data that steered it if that is why (a call whose
 * input the tool refuses fails without asking).
 */
const gatedTool = (ctx: RunContext, step: PlanStep, input: unknown) => {
  const tool = step.tool ? ctx.tools.get(step.tool) : undefined
  if (!tool) return undefined
  const steered = steeredCall(ctx, tool, step, input)
  if (!steered && !needsApproval(tool, input, ctx.approvalTools)) return undefined
  return Either.isRight(Schema.decodeUnknownEither(tool.input)(input ?? {})) ? { tool, steered } : undefined
}

/** Whether the step's tool call would wait for a person now: it needs approval and no answer is on record yet. */
export const wouldWait = (ctx: RunContext, passNumber: number, step: PlanStep) => {
  const r = ctx.events.record()
  // the input the call would get (an unresolvable reference fails the step before any approval is asked)
  const input = Either.getOrElse(toolCallInput(r.attempt, step), () => step.toolInput)
  const gated = gatedTool(ctx, step, input)
  if (!gated || (gated.steered && ctx.untrustedCalls === "fail")) return false
  if (r.attempt?.toolResults[step.stepId] !== undefined) return false // its call completed before a restart
  return approvalFor(r, passNumber, step.stepId, input)?.answer === undefined
}

/** A request that can still be answered: the run goes on, the request is of this kind, and has no answer yet. */
const answerable = (r: RunRecord, requestId: string, kind: AskedEvent["_tag"]): Either.Either<void, AnswerError> => {
  if (r.finished) return Either.left(new RunNotWaitingError({ runId: r.runId, status: r.finished.status }))
  const asked = r.requests.get(requestId)
  if (!asked || asked.request._tag !== kind) {
    return Either.left(new ApprovalNotFoundError({ runId: r.runId, requestId }))
  }
  if (asked.answer) {
    const decision = asked.answer._tag === "ApprovalAnswered" ? asked.answer.decision : "GUIDANCE"
    return Either.left(new ApprovalAlreadyAnsweredError({ requestId, decision }))
  }
  return Either.void
}

/** Records an answer, checked against the record as it is in the same step (the first answer stands). */
const answerWith = (events: RunJournal, requestId: string, kind: AskedEvent["_tag"], answer: RunEventBody) =>
  events.emitWhen((r) => Either.map(answerable(r, requestId, kind), (): RunEventBody => answer))

/** What asking a person needs of a run: its events, and how long a request stays open. */
export type Asker = Pick<RunContext, "events" | "approvalTimeoutMs">

/**
 * Asks a person once — a resumed run finds its request again (`asked`) — stores the request before the run waits,
 * and waits for the answer; past the request's expiry, `expired` is the answer recorded.
 */
export const askOnce = <Q extends AskedEvent>(
  ctx: Asker,
  asked: (r: RunRecord) => Q | undefined,
  create: (r: RunRecord, now: number) => Omit<Q, "runId" | "seq" | "at">,
  expired: (request: Q) => RunEventBody
) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const request = (yield* ctx.events.emitWhen((r) => {
      const found = asked(r)
      return found ? Either.left(found) : Either.right(create(r, now) as RunEventBody)
    }).pipe(Effect.merge)) as Q
    yield* ctx.events.flushed // stored before the run waits: a restart finds the request
    const answered = ctx.events.waitFor(
      (r) => r.requests.get(request.requestId)?.answer,
      (e) =>
        (e._tag === "ApprovalAnswered" || e._tag === "GuidanceProvided") && e.requestId === request.requestId
          ? e
          : undefined
    )
    if (request.expiresAt === undefined) return yield* answered
    return yield* answered.pipe(
      Effect.timeoutTo({
        duration: Duration.millis(Math.max(0, request.expiresAt - (yield* Clock.currentTimeMillis))),
        onSuccess: (a): Effect.Effect<AnsweredEvent> => Effect.succeed(a),
        // (answered at the same moment: that answer stands)
        onTimeout: () =>
          answerWith(ctx.events, request.requestId, request._tag, expired(request)).pipe(
            Effect.map((e) => e as AnsweredEvent),
            Effect.catchAll(() => answered)
          )
      }),
      Effect.flatten
    )
  })

/** The answer a request nobody answered in time gets: a rejection by the timeout. */
export const rejectedAfter = (ctx: Asker) => (request: AskedEvent): RunEventBody => ({
  _tag: "ApprovalAnswered",
  requestId: request.requestId,
  decision: "REJECT",
  reason: `not answered within ${ctx.approvalTimeoutMs} ms`,
  by: "timeout"
})

export const expiresAt = (ctx: Asker, now: number) =>
  ctx.approvalTimeoutMs !== undefined ? { expiresAt: now + ctx.approvalTimeoutMs } : {}

/** Asks for approval of a call and waits for the answer; unanswered in time, a rejection. */
const ask = (ctx: RunContext, passNumber: number, step: ToolStep, input: unknown, steered?: Steering) =>
  askOnce(
    ctx,
    (r) =>
      approvalFor(r, passNumber, step.stepId, input)?.request as Extract<AskedEvent, { _tag: "ApprovalRequested" }>,
    (r, now) => ({
      _tag: "ApprovalRequested" as const,
      passNumber,
      requestId: `${step.stepId}-p${passNumber}-${
        [...r.requests.values()].filter((q) =>
          q.request._tag === "ApprovalRequested" && q.request.stepId === step.stepId
        )
          .length + 1
      }`,
      stepId: step.stepId,
      tool: step.tool,
      input,
      description: step.description,
      ...(steered ? { reason: steered.reason, untrustedSources: steered.sources } : {}),
      ...expiresAt(ctx, now)
    }),
    rejectedAfter(ctx)
  ).pipe(Effect.map((a) => a as Answered))

/**
 * The gate before a tool call: the input the call runs with (as asked, or as edited), or the rejection that fails
 * the step with its reason. A call that needs no approval passes at once; so does an input the tool's schema
 * refuses (the call fails on it anyway, and its repaired input is what gets asked about).
 */
export const approve = (ctx: RunContext, passNumber: number, step: ToolStep, input: unknown) =>
  Effect.gen(function*() {
    const gated = gatedTool(ctx, step, input)
    if (!gated) return Either.right(input)
    const { steered, tool } = gated
    // unattended runs (AEON_UNTRUSTED_CALLS=fail): the step fails, coded, instead of waiting for a person
    if (steered && ctx.untrustedCalls === "fail") {
      return Either.left(new ToolFailedError({ tool: tool.name, message: `UNTRUSTED_CALL: ${steered.reason}` }))
    }
    const answer = yield* ask(ctx, passNumber, step, input, steered)
    if (answer.decision === "REJECT") {
      const who = answer.by === "timeout" ? "" : " by the run's owner"
      return Either.left(
        new ToolFailedError({
          tool: tool.name,
          message: `the call was rejected${who}: ${answer.reason ?? "no reason given"}`
        })
      )
    }
    return Either.right(answer.decision === "EDIT" ? answer.input : input)
  })

export interface ApprovalAnswer {
  readonly decision: ApprovalDecision
  readonly input?: unknown
  readonly reason?: string | undefined
  readonly by?: string | undefined
}

/** Plan edits the planner's checks refuse (or no edits at all): the request stays open. */
const checkPlanEdit = (events: RunJournal, plan: Plan, input: unknown) =>
  Effect.gen(function*() {
    if (!Array.isArray(input)) {
      return yield* new ApprovalInputError({ message: "EDIT of a plan needs its edits: a list of refinement actions" })
    }
    const tools = (yield* ToolRegistry).tools
    const edited = editPlan(plan, input, toolInfos(tools))
    if (Either.isLeft(edited)) return yield* new ApprovalInputError({ message: edited.left })
  })

/** Caps that do not raise the budget that stopped the run: the request stays open. */
const checkCaps = (request: Extract<AskedEvent, { _tag: "BudgetExtensionRequested" }>, input: unknown) => {
  const refused = capsRefusal(request, input)
  return refused === undefined ? Effect.void : Effect.fail(new ApprovalInputError({ message: refused }))
}

/** An edited input the tool refuses: the request stays open. */
const checkEdit = (events: RunJournal, requestId: string, input: unknown) =>
  Effect.gen(function*() {
    const request = events.record().requests.get(requestId)?.request
    if (request?._tag === "PlanApprovalRequested") return yield* checkPlanEdit(events, request.plan, input)
    if (request?._tag === "BudgetExtensionRequested") return yield* checkCaps(request, input)
    const tool = request?._tag === "ApprovalRequested" ? (yield* ToolRegistry).get(request.tool) : undefined
    if (!tool) return
    if (input === undefined) return yield* new ApprovalInputError({ message: "EDIT needs the edited input" })
    const decoded = Schema.decodeUnknownEither(tool.input)(input)
    if (Either.isLeft(decoded)) {
      return yield* new ApprovalInputError({
        message: `the edited input does not fit ${tool.name}: ${
          ParseResult.TreeFormatter.formatErrorSync(decoded.left)
        }`
      })
    }
  })

/**
 * Answers a run's approval request (the library's, the API's and the CLI's way): APPROVE, REJECT (with a reason),
 * or EDIT with an input the tool's schema accepts — a refused input is an `ApprovalInputError` and the request
 * stays open. A second answer is an `ApprovalAlreadyAnsweredError`.
 */
export const respond = (events: RunJournal, requestId: string, answer: ApprovalAnswer) =>
  Effect.gen(function*() {
    const asked = events.record().requests.get(requestId)?.request._tag
    // a budget extension's APPROVE may carry the caps it gives (EDIT is the same)
    const withInput = answer.decision === "EDIT" ||
      (answer.decision === "APPROVE" && asked === "BudgetExtensionRequested" && answer.input !== undefined)
    if (withInput) yield* checkEdit(events, requestId, answer.input)
    const kind = asked === "PlanApprovalRequested" || asked === "BudgetExtensionRequested" ? asked : "ApprovalRequested"
    return yield* answerWith(events, requestId, kind, {
      _tag: "ApprovalAnswered",
      requestId,
      decision: answer.decision,
      ...(withInput ? { input: answer.input } : {}),
      ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
      ...(answer.by !== undefined ? { by: answer.by } : {})
    })
  })

/**
 * The plan's approval before its first execution pass: asked once (a resumed run finds its request again) with the
 * plan, its validation report and its forecast, and waited for; unanswered in time, a rejection.
 */
export const askPlanApproval = (
  ctx: RunContext,
  passNumber: number,
  asked: Omit<Extract<AskedEvent, { _tag: "PlanApprovalRequested" }>, "runId" | "seq" | "at" | "_tag" | "requestId">
) =>
  askOnce(
    ctx,
    (r) =>
      [...r.requests.values()].find((q) =>
        q.request._tag === "PlanApprovalRequested" && q.request.passNumber === passNumber
      )?.request as Extract<AskedEvent, { _tag: "PlanApprovalRequested" }> | undefined,
    (_, now) => ({
      _tag: "PlanApprovalRequested" as const,
      ...asked,
      requestId: `plan-p${passNumber}`,
      ...expiresAt(ctx, now)
    }),
    rejectedAfter(ctx)
  ).pipe(Effect.map((a) => a as Answered))

/** The requests of a run not answered yet. */
export const pending = (events: RunJournal) => pendingApprovals(events.record())

/**
 * An interactive run's request for guidance where it would need manual intervention: asked once (a resumed run
 * finds it again), and waited for; the guidance given (empty when `approvalTimeoutMs` passed first).
 */
export const askGuidance = (ctx: RunContext, passNumber: number, stepId: string, reason: string) => {
  const requestId = `guide-${stepId}-p${passNumber}`
  return askOnce(
    ctx,
    (r) => r.requests.get(requestId)?.request as Extract<AskedEvent, { _tag: "GuidanceRequested" }> | undefined,
    (_, now) => ({ _tag: "GuidanceRequested" as const, passNumber, requestId, stepId, reason, ...expiresAt(ctx, now) }),
    () => ({ _tag: "GuidanceProvided", requestId, text: "", by: "timeout" })
  ).pipe(Effect.map((a) => (a._tag === "GuidanceProvided" ? a.text : "")))
}

/** Gives guidance to a run that asked for it (once per request); it enters the next refinement's prompt. */
export const guide = (
  events: RunJournal,
  requestId: string,
  text: string,
  by?: string
): Effect.Effect<RunEvent, AnswerError | ApprovalInputError> =>
  text.trim() === ""
    ? Effect.fail(new ApprovalInputError({ message: "guidance must not be empty" }))
    : answerWith(events, requestId, "GuidanceRequested", {
      _tag: "GuidanceProvided",
      requestId,
      text,
      ...(by !== undefined ? { by } : {})
    })
