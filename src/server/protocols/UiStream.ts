import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from "ai"
import { Effect } from "effect"
import type { RunEvent } from "../../domain/RunEvent.js"
import { ownRun } from "../../runs/RunAccess.js"
import { RunManager } from "../../runs/RunManager.js"
import type { RunModel } from "../../runs/RunModel.js"
import {
  attachmentsOf,
  callerAndBody,
  callerOf,
  conversationOf,
  conversationTag,
  empty,
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
  threadOf,
  thrownFailure
} from "./Http.js"
import { type RunItem, runItems } from "./RunItems.js"
import { viewFold } from "./RunView.js"

/**
 * The AI SDK's UI message stream (`useChat`'s protocol, `x-vercel-ai-ui-message-stream: v1`) at `POST /api/chat`:
 * the last user message is the task; the run's phases and finished steps are reasoning parts, its tool calls dynamic
 * tool parts (input, then output), its answer a text part, its state one `data-run` part updated in place (plan,
 * budget, usage, convergence, what it waits for), where it is in the log one `data-cursor` part (`seq`: the last event
 * given). The assistant message's id is the run's id. `GET /api/chat/:runId/stream?fromSeq=&textFrom=` resumes a cut
 * stream from the log: the events after the cursor's seq, the answer's text from the characters the message holds;
 * without them, the whole stream
 * of a run still going (204 when it has ended: nothing to resume).
 */

const cut = (text: string, max = 500) => (text.length > max ? `${text.slice(0, max)}…` : text)

/** A reasoning part, whole: what the run is doing, in words. */
const reasoning = (id: string, text: string): Array<UIMessageChunk> => [
  { type: "reasoning-start", id },
  { type: "reasoning-delta", id, delta: text },
  { type: "reasoning-end", id }
]

const partsOfEvent = (e: RunEvent): Array<UIMessageChunk> => {
  switch (e._tag) {
    case "PhaseEntered":
      return reasoning(`r${e.seq}`, `Pass ${e.passNumber}: ${e.phase.toLowerCase()}`)
    case "StepFinished":
      return reasoning(`r${e.seq}`, `Step ${e.stepId} ${e.status}: ${cut(e.stepOutput)}`)
    case "ToolInvoked": {
      const toolCallId = `t${e.seq}`
      return [
        { type: "tool-input-available", toolCallId, toolName: e.tool, input: e.input ?? {}, dynamic: true },
        e.error !== undefined
          ? { type: "tool-output-error", toolCallId, errorText: e.error, dynamic: true }
          : { type: "tool-output-available", toolCallId, output: e.output ?? null, dynamic: true }
      ]
    }
    default:
      return []
  }
}

/** The run's items as UI message chunks, from `fromSeq` of its log and `textFrom` of its answer. */
async function* chunksOf(
  ctx: ProtocolContext,
  run: RunModel,
  fromSeq: number,
  textFrom: number,
  signal: AbortSignal
): AsyncGenerator<ReadonlyArray<UIMessageChunk>> {
  const fold = viewFold(run.events.filter((e) => e.seq < fromSeq), {
    id: run.id,
    task: run.result.task,
    mode: run.result.mode
  })
  const textId = `${run.id}-answer-${fromSeq}-${textFrom}`
  let textOpen = false
  /** The run's state: one part, replaced in place, sent when it changed. */
  const runPart = (): UIMessageChunk => ({ type: "data-run", id: "run", data: fold.view() })
  /** Where the message is in the run's log: the last event given (its `seq`, emitted at `at`), the resume point. */
  const cursor = (seq: number, at?: number): UIMessageChunk => ({
    type: "data-cursor",
    id: "cursor",
    data: { runId: run.id, seq, ...(at !== undefined ? { at } : {}) }
  })
  const text = (delta: string): Array<UIMessageChunk> => {
    const start: Array<UIMessageChunk> = textOpen ? [] : [{ type: "text-start", id: textId }]
    textOpen = true
    return [...start, { type: "text-delta", id: textId, delta }]
  }
  const ofItem = (item: RunItem): Array<UIMessageChunk> => {
    if (item._tag === "Text") return text(item.delta)
    if (item._tag === "TextRestarted") return text(`\n\n${item.text}`)
    const e = item.event
    const changed = Object.keys(fold.next(e)).length > 0
    const parts = [...partsOfEvent(e), ...(changed ? [runPart()] : []), cursor(e.seq, e.at)]
    if (e._tag !== "RunFinished") return parts
    const end: Array<UIMessageChunk> = textOpen ? [{ type: "text-end", id: textId }] : []
    const failed: Array<UIMessageChunk> = e.status === "FAILED"
      ? [{ type: "error", errorText: `the run failed${e.error ? `: ${e.error}` : ""}` }]
      : []
    const reason = e.status === "FAILED"
      ? "error"
      : e.terminationReason === "budget_exhausted" || e.terminationReason === "ttl_expired"
      ? "length"
      : "stop"
    // a typed run's value (its output schema's) as a data part: the AI SDK's data-* parts reach useChat typed
    const data: Array<UIMessageChunk> = e.finalAnswer?.data !== undefined
      ? [{ type: "data-output", id: "output", data: e.finalAnswer.data }]
      : []
    return [...parts, ...end, ...data, ...failed, { type: "finish", finishReason: reason }]
  }
  yield [{ type: "start", messageId: run.id }, runPart(), cursor(fromSeq - 1)]
  const items = await runExit(ctx.runtime, runItems(run.id, { fromSeq, textFrom, signal }))
  if (items._tag === "Failure") {
    yield [{ type: "error", errorText: publicFailure(items.cause).message }]
    return
  }
  try {
    for await (const item of items.value) yield ofItem(item)
  } catch (e) {
    yield [{ type: "error", errorText: thrownFailure(e).message }]
  }
}

/**
 * The chunks as the UI message stream's SSE (`data: <chunk>` each, `data: [DONE]` last: the framing of the `ai`
 * package's JsonToSseTransformStream) under its UI_MESSAGE_STREAM_HEADERS. Not its pipeUIMessageStreamToResponse:
 * each chunk through its web streams put bench row 44a's followers past their target; written directly, as the other
 * protocols are, they meet it (bench/RESULTS.md).
 */
const send = (ctx: ProtocolContext, run: RunModel, fromSeq: number, textFrom: number) =>
  frames({ ...UI_MESSAGE_STREAM_HEADERS, "x-aeon-run-id": run.id }, async function*(signal) {
    // an event's chunks in one write
    for await (const chunks of chunksOf(ctx, run, fromSeq, textFrom, signal)) {
      yield chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")
    }
    yield "data: [DONE]\n\n"
  }, (f) => `data: ${JSON.stringify({ type: "error", errorText: f.message } satisfies UIMessageChunk)}\n\n`)

interface ChatBody {
  readonly messages?: ReadonlyArray<{ readonly role?: unknown; readonly parts?: unknown; readonly content?: unknown }>
  readonly aeon?: Record<string, unknown>
  readonly id?: unknown
}

const startChat = async (ctx: ProtocolContext, { params, req }: ProtocolRequest): Promise<Reply> => {
  const read = await callerAndBody(ctx, req)
  if ("status" in read) return refuseJson(read.status, read.code, read.message)
  const { body: value, caller } = read
  const chat = (value ?? {}) as ChatBody
  const conversation = conversationOf((Array.isArray(chat.messages) ? chat.messages : []).map((m) => ({
    role: String(m?.role ?? ""),
    text: textOf(m?.parts ?? m?.content)
  })))
  if (conversation === undefined) {
    return refuseJson(400, "BAD_REQUEST", "messages must hold a user message with text")
  }
  const tags = ["ui-chat", ...(typeof chat.id === "string" ? [conversationTag("chat", chat.id)] : [])]
  const lastUser = [...(Array.isArray(chat.messages) ? chat.messages : [])].reverse().find((m) => m?.role === "user")
  const attachments = attachmentsOf(lastUser?.parts)
  const input = {
    ...chat.aeon,
    task: conversation.task,
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(conversation.history.length > 0 ? { history: conversation.history } : {}),
    ...threadOf(chat.id),
    tags,
    ...(params.name !== undefined ? { agent: params.name } : {}),
    ...(caller.userId !== undefined ? { userId: caller.userId } : {})
  }
  const started = await runExit(ctx.runtime, Effect.flatMap(RunManager, (m) => m.start(input, caller.userId)))
  if (started._tag === "Failure") {
    const f = publicFailure(started.cause)
    return refuseJson(statusOf(f.code), f.code, f.message)
  }
  return send(ctx, started.value, 0, 0)
}

/** A non-negative integer query parameter, or undefined. */
const count = (url: URL, name: string) => {
  const v = url.searchParams.get(name)
  return v !== null && /^\d+$/.test(v) ? Number(v) : undefined
}

const resume = async (ctx: ProtocolContext, { params, req }: ProtocolRequest): Promise<Reply> => {
  const caller = callerOf(ctx.auth, req)
  if (!caller) return refuseJson(401, "UNAUTHENTICATED", "missing or invalid API key")
  const found = await runExit(ctx.runtime, ownRun(caller.userId, params.runId ?? ""))
  if (found._tag === "Failure") return empty(204) // no stream of the caller's to resume
  const url = new URL(req.url ?? "", "http://localhost")
  const fromSeq = count(url, "fromSeq")
  if (fromSeq === undefined && found.value.record.finished) return empty(204)
  return send(ctx, found.value, fromSeq ?? 0, count(url, "textFrom") ?? 0)
}

/** The chat's routes: a new turn, and a run's stream resumed. */
export const routes = (ctx: ProtocolContext): ReadonlyArray<Route> => [
  { method: "POST", path: "/api/chat", handle: (request) => startChat(ctx, request), refuse: refuseJson },
  { method: "POST", path: "/api/chat/agents/:name", handle: (request) => startChat(ctx, request), refuse: refuseJson },
  { method: "GET", path: "/api/chat/:runId/stream", handle: (request) => resume(ctx, request), refuse: refuseJson }
]
