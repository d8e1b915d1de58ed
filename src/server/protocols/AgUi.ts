import {
  type AGUIEvent,
  EventType,
  type Interrupt,
  PROTOCOL_VERSION,
  type ResumeEntry,
  type RunAgentInput
} from "@ag-ui/core"
import { RunAgentInputSchema } from "@ag-ui/core/schemas"
import { EventEncoder } from "@ag-ui/encoder"
import { Effect } from "effect"
import type { RunEvent } from "../../domain/RunEvent.js"
import { type AskedEvent, asks } from "../../record/Requests.js"
import { requestMessage } from "../../record/Requests.js"
import { answerRequest, type RequestAnswer } from "../../runs/Answering.js"
import { ownRun } from "../../runs/RunAccess.js"
import { RunManager } from "../../runs/RunManager.js"
import type { RunModel } from "../../runs/RunModel.js"
import { recordField } from "../../support/Fields.js"
import {
  attachmentsOf,
  callerAndBody,
  conversationOf,
  conversationTag,
  frames,
  type ProtocolContext,
  type ProtocolRequest,
  publicFailure,
  refuseJson,
  type Reply,
  type Route,
  runExit,
  statusOf,
  textOf,
  threadOf
} from "./Http.js"
import { pausesOrEnds, type RunItem, runItems } from "./RunItems.js"
import { viewFold } from "./RunView.js"

/**
 * AG-UI at `POST /ag-ui`: a RunAgentInput in, AG-UI events out as SSE (`@ag-ui/core`'s types, `@ag-ui/encoder`'s
 * encoding). The last user message is the task; the run's phases and steps are STEP_STARTED / STEP_FINISHED, its
 * tool calls TOOL_CALL_*, its answer a text message, its plan, budget, usage and convergence the state (a snapshot,
 * then deltas). A request to a person ends the response with RUN_FINISHED's interrupt outcome; the client's next
 * request answers it (`resume`) and the run's events go on from there. A runId that names an existing run of the
 * caller follows it from its log. Aeon's run options go in `forwardedProps.aeon` (mode, budget, approvePlan, …).
 */

/** An interrupt's id: the run and the request it answers, so a resume needs nothing kept but the run's log. */
export const interruptId = (runId: string, requestId: string) =>
  `${encodeURIComponent(runId)}/${encodeURIComponent(requestId)}`
const fromInterruptId = (id: string) => {
  const [runId, requestId] = id.split("/").map(decodeURIComponent)
  return runId && requestId ? { runId, requestId } : undefined
}

/** What an interrupt asks for: the answer's JSON Schema (an `action`, as Aeon's MCP `respond` takes). */
const responseSchema = (r: AskedEvent): Record<string, unknown> =>
  r._tag === "GuidanceRequested"
    ? {
      type: "object",
      properties: { action: { const: "guide" }, text: { type: "string", minLength: 1 } },
      required: ["action", "text"]
    }
    : {
      type: "object",
      properties: {
        action: {
          enum: r._tag === "BudgetExtensionRequested" ? ["approve", "reject", "extend"] : ["approve", "reject", "edit"]
        },
        input: {},
        reason: { type: "string" }
      },
      required: ["action"]
    }

const interruptOf = (r: AskedEvent): Interrupt => ({
  id: interruptId(r.runId, r.requestId),
  reason: r._tag === "PlanApprovalRequested"
    ? "plan_approval"
    : r._tag === "ApprovalRequested"
    ? "tool_approval"
    : r._tag === "BudgetExtensionRequested"
    ? "budget_extension"
    : "guidance",
  message: requestMessage(r),
  responseSchema: responseSchema(r),
  ...(r.expiresAt !== undefined ? { expiresAt: new Date(r.expiresAt).toISOString() } : {})
})

/** A resume entry as an answer: `cancelled` refuses what was asked. */
const answerOfEntry = (entry: ResumeEntry): RequestAnswer =>
  entry.status === "cancelled"
    ? { action: "reject", reason: "cancelled in the AG-UI client" }
    : (typeof entry.payload === "object" && entry.payload !== null ? entry.payload : { action: String(entry.payload) })

/**
 * A run that finished (not failed): RUN_FINISHED with its result; a typed run's value (its output schema's) before it
 * as a custom event a client can take as data, and in the result's data.
 */
const finishedEvents = (input: RunAgentInput, e: Extract<RunEvent, { _tag: "RunFinished" }>): Array<AGUIEvent> => {
  const data = e.finalAnswer?.data
  return [
    ...(data !== undefined ? [{ type: EventType.CUSTOM, name: "aeon.data", value: data } satisfies AGUIEvent] : []),
    {
      type: EventType.RUN_FINISHED,
      threadId: input.threadId,
      runId: input.runId,
      outcome: e.status === "CANCELLED" ? { type: "cancelled" } : { type: "success" },
      ...(e.status !== "CANCELLED"
        ? {
          result: {
            aeonRunId: e.runId,
            status: e.status,
            answer: e.finalAnswer?.answerText ?? null,
            ...(data !== undefined ? { data } : {})
          }
        }
        : {})
    }
  ]
}

/** A tool call as AG-UI's events: its start, its arguments, its end and its result. */
const toolCallEvents = (runId: string, e: Extract<RunEvent, { _tag: "ToolInvoked" }>): Array<AGUIEvent> => {
  const toolCallId = `${runId}-tool-${e.seq}`
  return [
    { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: e.tool },
    { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(e.input ?? {}) },
    { type: EventType.TOOL_CALL_END, toolCallId },
    {
      type: EventType.TOOL_CALL_RESULT,
      messageId: `${toolCallId}-result`,
      toolCallId,
      role: "tool",
      content: e.error !== undefined ? `error: ${e.error}` : JSON.stringify(e.output ?? null)
    }
  ]
}

/** How the response ends at an event, if it ends there: an interrupt (the run asks), an error, or the run's end. */
const endEvents = (input: RunAgentInput, e: RunEvent): Array<AGUIEvent> => {
  if (asks(e)) {
    return [{
      type: EventType.RUN_FINISHED,
      threadId: input.threadId,
      runId: input.runId,
      outcome: { type: "interrupt", interrupts: [interruptOf(e)] }
    }]
  }
  if (e._tag !== "RunFinished") return []
  if (e.status === "FAILED") {
    return [{ type: EventType.RUN_ERROR, message: e.error ?? "the run failed", code: e.errorCode ?? "RUN_FAILED" }]
  }
  return finishedEvents(input, e)
}

/** AG-UI events of a run's items, with what is open (steps, the text message) closed where the response ends. */
const eventsOf = (input: RunAgentInput, run: RunModel, fromSeq: number) => {
  const fold = viewFold(run.events.filter((e) => e.seq < fromSeq), {
    id: run.id,
    task: run.result.task,
    mode: run.result.mode
  })
  const open = new Set<string>()
  let message: string | undefined
  let messages = 0
  const start = (name: string): Array<AGUIEvent> => {
    open.add(name)
    return [{ type: EventType.STEP_STARTED, stepName: name }]
  }
  const finish = (name: string): Array<AGUIEvent> =>
    open.delete(name) ? [{ type: EventType.STEP_FINISHED, stepName: name }] : []
  const closeAll = (): Array<AGUIEvent> => [
    ...(message ? [{ type: EventType.TEXT_MESSAGE_END, messageId: message } satisfies AGUIEvent] : []),
    ...[...open].reverse().flatMap(finish)
  ]
  const text = (delta: string): Array<AGUIEvent> => {
    const started: Array<AGUIEvent> = []
    if (!message) {
      message = `${run.id}-answer-${++messages}`
      started.push({ type: EventType.TEXT_MESSAGE_START, messageId: message, role: "assistant" })
    }
    return [...started, { type: EventType.TEXT_MESSAGE_CONTENT, messageId: message, delta }]
  }
  const phaseName = (e: Extract<RunEvent, { _tag: "PhaseEntered" }>) => `pass ${e.passNumber}: ${e.phase}`
  const ofEvent = (e: RunEvent): Array<AGUIEvent> => {
    switch (e._tag) {
      case "PhaseEntered":
        return [
          ...[...open].filter((n) => n.startsWith(`pass ${e.passNumber}:`)).flatMap(finish),
          ...start(phaseName(e))
        ]
      case "PassFinished":
        return [...open].filter((n) => n.startsWith(`pass ${e.passNumber}:`)).flatMap(finish)
      case "StepStarted":
        return start(`step ${e.stepId}`)
      case "StepFinished":
      case "StepAbandoned":
        return finish(`step ${e.stepId}`)
      case "ToolInvoked":
        return toolCallEvents(run.id, e)
      default:
        return []
    }
  }
  const delta = (e: RunEvent): Array<AGUIEvent> => {
    const changed = fold.next(e)
    const ops = Object.entries(changed).map(([key, value]) => ({ op: "add" as const, path: `/${key}`, value }))
    return ops.length > 0 ? [{ type: EventType.STATE_DELTA, delta: ops }] : []
  }
  const end = (e: RunEvent): Array<AGUIEvent> => {
    const last = endEvents(input, e)
    return last.length > 0 ? [...closeAll(), ...last] : []
  }
  const head: Array<AGUIEvent> = [
    {
      type: EventType.RUN_STARTED,
      threadId: input.threadId,
      runId: input.runId,
      protocolVersion: PROTOCOL_VERSION
    },
    { type: EventType.STATE_SNAPSHOT, snapshot: fold.view() }
  ]
  const ofItem = (item: RunItem): Array<AGUIEvent> => {
    if (item._tag === "Text") return text(item.delta)
    if (item._tag === "TextRestarted") {
      const ended = message ? [{ type: EventType.TEXT_MESSAGE_END, messageId: message } satisfies AGUIEvent] : []
      message = undefined
      return [...ended, ...text(item.text)]
    }
    // stamped with the run event's time: what a client measures its delay from
    const at = item.event.at
    return [...ofEvent(item.event), ...delta(item.event), ...end(item.event)].map((e) => ({ ...e, timestamp: at }))
  }
  return { head, ofItem }
}

/** The run this request follows, and from where: a resume answers its interrupts first; else an existing or new run. */
const runOf = (input: RunAgentInput, userId: string | undefined, agent: string | undefined) =>
  Effect.gen(function*() {
    const manager = yield* RunManager
    const resume = input.resume ?? []
    if (resume.length > 0) {
      let fromSeq = 0
      let runId = ""
      for (const entry of resume) {
        const target = fromInterruptId(entry.interruptId)
        const run = yield* ownRun(userId, target?.runId ?? "")
        const asked = run.events.find((e) => asks(e) && e.requestId === target?.requestId)
        if (!asked || !target) continue
        yield* answerRequest(run.id, target.requestId, answerOfEntry(entry), `ag-ui:${userId ?? "user"}`)
        fromSeq = Math.max(fromSeq, asked.seq + 1)
        runId = run.id
      }
      return { run: yield* ownRun(userId, runId), fromSeq }
    }
    const existing = yield* Effect.either(ownRun(userId, input.runId))
    if (existing._tag === "Right") return { run: existing.right, fromSeq: 0 }
    const chat = conversationOf(input.messages.map((m) => ({ role: m.role, text: textOf(m.content) })))
    const options = recordField(input.forwardedProps, "aeon") ?? {}
    const runId = /^[A-Za-z0-9_-]{1,64}$/.test(input.runId) ? { runId: input.runId } : {}
    const started = yield* manager.start({
      ...options,
      ...runId,
      task: chat?.task ?? "",
      ...attachedOfLast(input.messages),
      ...(chat && chat.history.length > 0 ? { history: chat.history } : {}),
      ...threadOf(input.threadId),
      tags: ["ag-ui", conversationTag("thread", input.threadId)],
      ...(agent !== undefined ? { agent } : {}),
      ...(userId !== undefined ? { userId } : {})
    }, userId)
    return { run: started, fromSeq: 0 }
  })

/** The binary parts of the last user message: the run's attachments. */
const attachedOfLast = (messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }>) => {
  const attachments = attachmentsOf([...messages].reverse().find((m) => m.role === "user")?.content)
  return attachments.length > 0 ? { attachments } : {}
}

const run = async (ctx: ProtocolContext, { params, req }: ProtocolRequest): Promise<Reply> => {
  const read = await callerAndBody(ctx, req)
  if ("status" in read) return refuseJson(read.status, read.code, read.message)
  const { body: value, caller } = read
  const parsed = RunAgentInputSchema.safeParse(value)
  if (!parsed.success) {
    return refuseJson(
      400,
      "BAD_REQUEST",
      `not a RunAgentInput: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`
    )
  }
  const input = parsed.data as RunAgentInput
  const found = await runExit(ctx.runtime, runOf(input, caller.userId, params.name))
  if (found._tag === "Failure") {
    const f = publicFailure(found.cause)
    return refuseJson(statusOf(f.code), f.code, f.message)
  }
  const { fromSeq, run: model } = found.value
  const encoder = new EventEncoder({ accept: "text/event-stream" })
  const { head, ofItem } = eventsOf(input, model, fromSeq)
  return frames(
    { "content-type": encoder.getContentType(), "x-aeon-run-id": model.id },
    async function*(signal) {
      yield head.map((event) => encoder.encode(event)).join("")
      const items = await runExit(ctx.runtime, runItems(model.id, { fromSeq, until: pausesOrEnds, signal }))
      if (items._tag === "Failure") throw new Error("the run cannot be followed")
      // an item's events in one write
      for await (const item of items.value) yield ofItem(item).map((event) => encoder.encode(event)).join("")
    },
    (f) => encoder.encode({ type: EventType.RUN_ERROR, message: f.message, code: f.code })
  )
}

/** The routes: the server's agent, and each named agent's (its runs are runs of that agent). */
export const routes = (ctx: ProtocolContext): ReadonlyArray<Route> => [
  { method: "POST", path: "/ag-ui", handle: (request) => run(ctx, request), refuse: refuseJson },
  { method: "POST", path: "/ag-ui/agents/:name", handle: (request) => run(ctx, request), refuse: refuseJson }
]
