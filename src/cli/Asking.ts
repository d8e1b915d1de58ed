/** A CLI run and the people it asks: answered at the terminal, or stopped with how to answer (exit code 3). */
import { Effect, Fiber, Queue, Ref } from "effect"
import { createInterface } from "node:readline/promises"
import { ApprovalInputError } from "../domain/Errors.js"
import type { RunEvent } from "../domain/RunEvent.js"
import { spentText } from "../record/Requests.js"
import { asks, openRequests } from "../record/RunRecord.js"
import { answer, type ApprovalAnswer } from "../run/Answers.js"
import { type PreparedRun, RunLifecycle } from "../run/Run.js"
import type { ToolRegistry } from "../tools/ToolRegistry.js"
import type { makeProgress } from "./Progress.js"
import { forecastText, planForecastLines } from "./Render.js"

export type Requested = Extract<
  RunEvent,
  { _tag: "ApprovalRequested" | "GuidanceRequested" | "PlanApprovalRequested" | "BudgetExtensionRequested" }
>

/** A request of a kind a person answers with y/n/e: what is asked, what an edit is, and how it looks. */
interface Decision {
  readonly kind: "PLAN" | "BUDGET" | "APPROVAL"
  /** What the request is about, in lines (shown inline before the question, and off a terminal). */
  readonly lines: ReadonlyArray<string>
  readonly question: string
  readonly edit: string
  readonly inputHint: string
  readonly json: Record<string, unknown>
}

const decisionOf = (r: Exclude<Requested, { _tag: "GuidanceRequested" }>): Decision => {
  switch (r._tag) {
    case "PlanApprovalRequested":
      return {
        kind: "PLAN",
        lines: [
          `run ${r.runId} waits for your approval of its plan (${r.requestId}):`,
          ...planForecastLines(r.plan, r.forecast)
        ],
        question: "Run this plan?",
        edit:
          "Edits as JSON (a list of refinement actions, e.g. [{\"actionType\":\"REMOVE\",\"targetStepId\":\"s2\"}]): ",
        inputHint: "<plan edits as JSON>",
        json: { plan: r.plan, forecast: r.forecast }
      }
    case "BudgetExtensionRequested":
      return {
        kind: "BUDGET",
        lines: [
          `run ${r.runId} ${spentText(r)} and asks for more (${r.requestId}): ${r.needs}`,
          ...(r.forecast ? [`  the rest is expected to need: ${forecastText(r.forecast)}`] : [])
        ],
        question: `Give it ${JSON.stringify(r.proposed)}?`,
        edit: `Caps as JSON (e.g. ${JSON.stringify(r.proposed)}): `,
        inputHint: "<caps as JSON>",
        json: {
          dimension: r.dimension,
          limit: r.limit,
          used: r.used,
          needs: r.needs,
          proposed: r.proposed,
          forecast: r.forecast
        }
      }
    case "ApprovalRequested":
      return {
        kind: "APPROVAL",
        lines: [
          `run ${r.runId} waits for your approval of ${r.requestId}: ${r.tool} ${JSON.stringify(r.input)}`,
          `  (step ${r.stepId}: ${r.description})`,
          ...(r.reason ? [`  held: ${r.reason}`] : [])
        ],
        question: `Approve ${r.tool} ${JSON.stringify(r.input)} (step ${r.stepId}: ${r.description})?`,
        edit: "Input as JSON: ",
        inputHint: "<JSON>",
        json: {
          stepId: r.stepId,
          tool: r.tool,
          input: r.input,
          description: r.description,
          ...(r.reason ? { reason: r.reason, untrustedSources: r.untrustedSources ?? [] } : {})
        }
      }
  }
}

/**
 * Runs to the end, or until a tool call waits for approval: then the run stops where it is, unfinished (as a server
 * shutting down leaves it), for `aeon approve` to answer and `aeon run --resume` to go on with.
 */
export const untilAsked = (p: PreparedRun) =>
  Effect.gen(function*() {
    const stopping = yield* Ref.make(false)
    const asked = nextRequest(p).pipe(Effect.tap(() => Ref.set(stopping, true)))
    // the first to end, also by failing (a run whose store stayed away ends with a defect: not waited for)
    return yield* Effect.raceFirst(
      Effect.map(p.execute, (result) => ({ _tag: "done" as const, result })),
      Effect.map(asked, (request) => ({ _tag: "asked" as const, request }))
    ).pipe(Effect.provideService(RunLifecycle, { shuttingDown: Ref.get(stopping) }))
  })

/**
 * The next request for a person: open now, or the next one asked. One already past its expiry is not: the run
 * answers it itself (a rejection) as it goes on.
 */
const nextRequest = (p: PreparedRun) =>
  p.events.waitFor(
    (r): Requested | undefined => openRequests(r).find((q) => q.expiresAt === undefined || q.expiresAt > Date.now()),
    (e) => (asks(e) ? e : undefined)
  )

/** The lines typed at the terminal, in order (typed ahead of a question, a line waits for it). */
interface Terminal {
  readonly lines: Queue.Queue<string>
  readonly close: () => void
}

const openTerminal = Effect.gen(function*() {
  const lines = yield* Queue.unbounded<string>()
  const rl = createInterface({ input: process.stdin })
  rl.on("line", (line) => void lines.unsafeOffer(line.trim()))
  return { lines, close: () => rl.close() } satisfies Terminal
})

/** Asks, and takes the next line typed. */
const question = (terminal: Terminal, text: string) =>
  Effect.zipRight(Effect.sync(() => process.stdout.write(text)), Queue.take(terminal.lines))

/** An approval decision on what the run asked, recorded on its log. */
const approval = (p: PreparedRun, r: Requested, decision: ApprovalAnswer) =>
  answer(p.events, { _tag: "Approval", requestId: r.requestId, answer: decision })

/** Asks the person at the terminal until the request is answered (a refused answer is said, and asked again). */
const answerInline = (terminal: Terminal, p: PreparedRun, r: Requested): Effect.Effect<void, never, ToolRegistry> =>
  Effect.gen(function*() {
    if (r._tag === "GuidanceRequested") {
      const text = yield* question(
        terminal,
        `\nThe run asks for guidance on step ${r.stepId} (${r.reason}).\nGuidance: `
      )
      return yield* answer(p.events, { _tag: "Guidance", requestId: r.requestId, text, by: "terminal" })
    }
    const d = decisionOf(r)
    const shown = d.kind === "APPROVAL" ? "" : `${d.lines.join("\n")}\n`
    const choice = (yield* question(terminal, `\n${shown}${d.question} [y]es / [n]o / [e]dit: `)).toLowerCase()
    if (choice.startsWith("n")) {
      const reason = yield* question(terminal, "Reason: ")
      return yield* approval(p, r, { decision: "REJECT", reason, by: "terminal" })
    }
    if (choice.startsWith("e")) {
      const text = yield* question(terminal, d.edit)
      const input = yield* Effect.try({
        try: (): unknown => JSON.parse(text),
        catch: () => new ApprovalInputError({ message: `not JSON: ${text}` })
      })
      return yield* approval(p, r, { decision: "EDIT", input, by: "terminal" })
    }
    if (!choice.startsWith("y")) return yield* new ApprovalInputError({ message: "answer y, n or e" })
    return yield* approval(p, r, { decision: "APPROVE", by: "terminal" })
  }).pipe(
    Effect.asVoid,
    Effect.catchAll((e) =>
      Effect.zipRight(Effect.sync(() => process.stdout.write(`${e.message}\n`)), answerInline(terminal, p, r))
    )
  )

/** Runs to the end, answering each request at the terminal as it comes. */
export const answeringInline = (p: PreparedRun, progress: ReturnType<typeof makeProgress> | undefined) =>
  Effect.acquireUseRelease(
    openTerminal,
    (terminal) =>
      Effect.gen(function*() {
        const answerer = yield* Effect.fork(Effect.forever(
          nextRequest(p).pipe(
            Effect.tap(() => Effect.sync(() => progress?.pause())),
            Effect.flatMap((r) => answerInline(terminal, p, r)),
            Effect.tap(() => Effect.sync(() => progress?.resume()))
          )
        ))
        const result = yield* p.execute
        yield* Fiber.interrupt(answerer)
        return { _tag: "done" as const, result }
      }),
    (terminal) => Effect.sync(() => terminal.close())
  )

/** The command that answers a request (`aeon guide` or `aeon approve`), wherever the run goes on. */
export const answerCommand = (r: Requested) =>
  r._tag === "GuidanceRequested"
    ? `aeon guide ${r.runId} ${r.requestId} "<what to do>"`
    : `aeon approve ${r.runId} ${r.requestId}   [--reject --reason "…"] [--input '${decisionOf(r).inputHint}']`

/** The commands that answer a request, then the one that lets the run go on. */
const answerCommands = (r: Requested) => ({ answer: answerCommand(r), then: `aeon run --resume ${r.runId}` })

/** What a run waiting for a person needs from you, and exit code 3. */
export const waitingForApproval = (r: Requested) =>
  Effect.sync(() => {
    const { answer, then } = answerCommands(r)
    process.stdout.write(
      [
        ...(r._tag === "GuidanceRequested"
          ? [`run ${r.runId} asks for your guidance (${r.requestId}) on step ${r.stepId}: ${r.reason}`]
          : decisionOf(r).lines),
        `  answer:  ${answer}`,
        `  then:    ${then}`,
        ""
      ].join("\n")
    )
    process.exitCode = 3
  })

/** The same with --json: the run as JSON, AWAITING_INPUT, with its open requests and their commands; exit code 3. */
export const waitingAsJson = (open: ReadonlyArray<Requested>) =>
  Effect.sync(() => {
    const requests = open.map((r) => ({
      requestId: r.requestId,
      ...(r._tag === "GuidanceRequested"
        ? { kind: "GUIDANCE", stepId: r.stepId, reason: r.reason }
        : { kind: decisionOf(r).kind, ...decisionOf(r).json }),
      ...(r.expiresAt !== undefined ? { expiresAt: new Date(r.expiresAt).toISOString() } : {}),
      ...answerCommands(r)
    }))
    process.stdout.write(
      `${JSON.stringify({ runId: open[0]!.runId, status: "AWAITING_INPUT", pendingRequests: requests }, null, 2)}\n`
    )
    process.exitCode = 3
  })
