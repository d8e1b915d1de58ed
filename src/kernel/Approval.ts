import { Clock, Config, Context, Duration, Effect, Either, Layer, ParseResult, Schema } from "effect"
import {
  ApprovalAlreadyAnsweredError,
  ApprovalInputError,
  ApprovalNotFoundError,
  RunNotWaitingError
} from "../domain/Errors.js"
import type { PlanStep } from "../domain/Plan.js"
import type { ApprovalDecision, RunEvent, RunEventBody } from "../domain/RunEvent.js"
import { pendingApprovals, type RunRecord } from "../run/RunRecord.js"
import { type Tool, ToolFailedError, ToolRegistry } from "../tools/ToolRegistry.js"
import type { RunContext } from "./RunContext.js"
import type { RunEvents } from "./RunEvents.js"

/** Tools whose calls wait for a person's approval in every run: names, or `*` for every tool with side effects. */
export class ApprovalPolicy extends Context.Tag("aeon/ApprovalPolicy")<ApprovalPolicy, {
  readonly tools: ReadonlyArray<string>
}>() {}

/** `AEON_APPROVAL_TOOLS` (comma-separated; empty: none). */
export const layerConfig = Layer.effect(
  ApprovalPolicy,
  Config.string("AEON_APPROVAL_TOOLS").pipe(
    Config.withDefault(""),
    Effect.map((s) => ({ tools: s.split(",").map((t) => t.trim()).filter((t) => t !== "") })),
    Effect.orDie
  )
)

/** Whether a call of `tool` with `input` waits for approval: the tool says so, or the run's list names it. */
export const needsApproval = (tool: Tool, input: unknown, names: ReadonlyArray<string>) =>
  tool.needsApproval === true ||
  (typeof tool.needsApproval === "function" && tool.needsApproval(input)) ||
  names.includes(tool.name) ||
  (names.includes("*") && !tool.idempotent)

type Requested = Extract<RunEvent, { _tag: "ApprovalRequested" }>
type Answered = Extract<RunEvent, { _tag: "ApprovalAnswered" }>

/** This step's request for this call in this pass, if asked already (before a restart, say). */
const approvalFor = (r: RunRecord, passNumber: number, stepId: string, input: unknown) => {
  const text = JSON.stringify(input)
  return [...r.approvals.values()].find((a) =>
    a.request.passNumber === passNumber && a.request.stepId === stepId && JSON.stringify(a.request.input) === text
  )
}
const requestFor = (r: RunRecord, passNumber: number, stepId: string, input: unknown) =>
  approvalFor(r, passNumber, stepId, input)?.request

/** Whether the step's tool call would wait for a person now: it needs approval and no answer is on record yet. */
export const wouldWait = (ctx: RunContext, passNumber: number, step: PlanStep) => {
  const tool = step.tool ? ctx.tools.get(step.tool) : undefined
  if (!tool || !needsApproval(tool, step.toolInput, ctx.approvalTools)) return false
  if (Either.isLeft(Schema.decodeUnknownEither(tool.input)(step.toolInput ?? {}))) return false
  const r = ctx.events.record()
  if (r.attempt?.toolResults[step.stepId] !== undefined) return false // its call completed before a restart
  return approvalFor(r, passNumber, step.stepId, step.toolInput)?.answer === undefined
}

/** Asks (once: a resumed run finds its request again) and waits for the answer; past `expiresAt`, a rejection. */
const ask = (ctx: RunContext, passNumber: number, step: PlanStep, input: unknown) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const request = yield* ctx.events.emitWhen((r) => {
      const asked = requestFor(r, passNumber, step.stepId, input)
      if (asked) return Either.left(asked)
      const n = [...r.approvals.values()].filter((a) => a.request.stepId === step.stepId).length + 1
      return Either.right({
        _tag: "ApprovalRequested" as const,
        passNumber,
        requestId: `${step.stepId}-p${passNumber}-${n}`,
        stepId: step.stepId,
        tool: step.tool!,
        input,
        description: step.description,
        ...(ctx.approvalTimeoutMs !== undefined ? { expiresAt: now + ctx.approvalTimeoutMs } : {})
      })
    }).pipe(
      Effect.map((e) => e as Requested),
      Effect.catchAll((asked) => Effect.succeed(asked)),
      Effect.tap(ctx.events.flushed) // stored before the run waits: a restart finds the request
    )
    const answered = ctx.events.waitFor(
      (r) => r.approvals.get(request.requestId)?.answer,
      (e) => (e._tag === "ApprovalAnswered" && e.requestId === request.requestId ? e : undefined)
    )
    return yield* untilExpired(answered, request.expiresAt, () =>
      respondTo(ctx.events, request.requestId, {
        decision: "REJECT",
        reason: `not answered within ${ctx.approvalTimeoutMs} ms`,
        by: "timeout"
      }).pipe(Effect.map((e) => e as Answered)))
  })

/** The answer, or past `expiresAt` what `expire` records (unless an answer came at the same moment: it stands). */
const untilExpired = <A, E>(
  answered: Effect.Effect<A>,
  expiresAt: number | undefined,
  expire: () => Effect.Effect<A, E>
) =>
  expiresAt === undefined ? answered : Effect.flatMap(Clock.currentTimeMillis, (now) =>
    answered.pipe(
      Effect.timeoutTo({
        duration: Duration.millis(Math.max(0, expiresAt - now)),
        onSuccess: (a): Effect.Effect<A> => Effect.succeed(a),
        onTimeout: () => Effect.catchAll(expire(), () => answered)
      }),
      Effect.flatten
    ))

/**
 * The gate before a tool call: the input the call runs with (as asked, or as edited), or the rejection that fails
 * the step with its reason. A call that needs no approval passes at once; so does an input the tool's schema
 * refuses (the call fails on it anyway, and its repaired input is what gets asked about).
 */
export const approve = (ctx: RunContext, passNumber: number, step: PlanStep, input: unknown) =>
  Effect.gen(function*() {
    const tool = ctx.tools.get(step.tool!)
    if (!tool || !needsApproval(tool, input, ctx.approvalTools)) return Either.right(input)
    if (Either.isLeft(Schema.decodeUnknownEither(tool.input)(input ?? {}))) return Either.right(input)
    const answer = yield* ask(ctx, passNumber, step, input)
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

/** Records an answer, checked against the record as it is (the first answer to a request stands). */
type AnswerError = RunNotWaitingError | ApprovalNotFoundError | ApprovalAlreadyAnsweredError

const respondTo = (events: RunEvents, requestId: string, answer: ApprovalAnswer) =>
  events.emitWhen((r): Either.Either<RunEventBody, AnswerError> => {
    const approval = r.approvals.get(requestId)
    if (r.finished) return Either.left(new RunNotWaitingError({ runId: r.runId, status: r.finished.status }))
    if (!approval) return Either.left(new ApprovalNotFoundError({ runId: r.runId, requestId }))
    if (approval.answer) {
      return Either.left(new ApprovalAlreadyAnsweredError({ requestId, decision: approval.answer.decision }))
    }
    return Either.right({
      _tag: "ApprovalAnswered" as const,
      requestId,
      decision: answer.decision,
      ...(answer.decision === "EDIT" ? { input: answer.input } : {}),
      ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
      ...(answer.by !== undefined ? { by: answer.by } : {})
    })
  })

/**
 * Answers a run's approval request (the library's, the API's and the CLI's way): APPROVE, REJECT (with a reason),
 * or EDIT with an input the tool's schema accepts — a refused input is an `ApprovalInputError` and the request
 * stays open. A second answer is an `ApprovalAlreadyAnsweredError`.
 */
export const respond = (events: RunEvents, requestId: string, answer: ApprovalAnswer) =>
  Effect.gen(function*() {
    if (answer.decision === "EDIT") {
      const request = events.record().approvals.get(requestId)?.request
      const tool = request && (yield* ToolRegistry).get(request.tool)
      if (tool) {
        if (answer.input === undefined) {
          return yield* new ApprovalInputError({ message: "EDIT needs the edited input" })
        }
        const decoded = Schema.decodeUnknownEither(tool.input)(answer.input)
        if (Either.isLeft(decoded)) {
          return yield* new ApprovalInputError({
            message: `the edited input does not fit ${tool.name}: ${
              ParseResult.TreeFormatter.formatErrorSync(decoded.left)
            }`
          })
        }
      }
    }
    return yield* respondTo(events, requestId, answer)
  })

/** The requests of a run not answered yet. */
export const pending = (events: RunEvents) => pendingApprovals(events.record())

type GuidanceGiven = Extract<RunEvent, { _tag: "GuidanceProvided" }>

/**
 * An interactive run's request for guidance where it would need manual intervention: asked once (a resumed run
 * finds it again), and waited for; the guidance given (empty when `approvalTimeoutMs` passed first).
 */
export const askGuidance = (ctx: RunContext, passNumber: number, stepId: string, reason: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const requestId = `guide-${stepId}-p${passNumber}`
    const request = yield* ctx.events.emitWhen((r) => {
      const asked = r.guidance.get(requestId)?.request
      if (asked) return Either.left(asked)
      return Either.right({
        _tag: "GuidanceRequested" as const,
        passNumber,
        requestId,
        stepId,
        reason,
        ...(ctx.approvalTimeoutMs !== undefined ? { expiresAt: now + ctx.approvalTimeoutMs } : {})
      })
    }).pipe(
      Effect.map((e) => e as Extract<RunEvent, { _tag: "GuidanceRequested" }>),
      Effect.catchAll((asked) => Effect.succeed(asked)),
      Effect.tap(ctx.events.flushed)
    )
    const given = ctx.events.waitFor(
      (r) => r.guidance.get(requestId)?.answer,
      (e) => (e._tag === "GuidanceProvided" && e.requestId === requestId ? e : undefined)
    )
    const answer = yield* untilExpired(
      given,
      request.expiresAt,
      () => guideWith(ctx.events, requestId, "", "timeout").pipe(Effect.map((e) => e as GuidanceGiven))
    )
    return answer.text
  })

const guideWith = (events: RunEvents, requestId: string, text: string, by?: string) =>
  events.emitWhen((r): Either.Either<RunEventBody, AnswerError> => {
    const guidance = r.guidance.get(requestId)
    if (r.finished) return Either.left(new RunNotWaitingError({ runId: r.runId, status: r.finished.status }))
    if (!guidance) return Either.left(new ApprovalNotFoundError({ runId: r.runId, requestId }))
    if (guidance.answer) return Either.left(new ApprovalAlreadyAnsweredError({ requestId, decision: "GUIDANCE" }))
    return Either.right({ _tag: "GuidanceProvided" as const, requestId, text, ...(by !== undefined ? { by } : {}) })
  })

/** Gives guidance to a run that asked for it (once per request); it enters the next refinement's prompt. */
export const guide = (
  events: RunEvents,
  requestId: string,
  text: string,
  by?: string
): Effect.Effect<RunEvent, AnswerError | ApprovalInputError> =>
  text.trim() === ""
    ? Effect.fail(new ApprovalInputError({ message: "guidance must not be empty" }))
    : guideWith(events, requestId, text, by)
