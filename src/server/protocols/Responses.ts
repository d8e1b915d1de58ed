import { Effect, Option, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { asks, requestMessage } from "../../record/Requests.js"
import * as RunAccess from "../../runs/RunAccess.js"
import { RunManager } from "../../runs/RunManager.js"
import type { RunModel } from "../../runs/RunModel.js"
import { Threads } from "../../store/Threads.js"
import {
  callerAndBody,
  callerOf,
  frames,
  json,
  type ProtocolContext,
  type ProtocolRequest,
  publicFailure,
  type Reply,
  type Route,
  runExit
} from "./Http.js"
import { failureRefusal, MODELS, OPENAI_CODES, refuse, refused } from "./OpenAiCompat.js"
import { responsesRequest } from "./ResponsesRequest.js"
import { pausesOrEnds, type RunItem, runItems } from "./RunItems.js"

/**
 * Aeon behind OpenAI's Responses API: `POST /v1/responses` (plain, streamed, in the background), `GET
 * /v1/responses/{id}` (the response, or its stream resumed after a sequence number), `POST /v1/responses/{id}/cancel`
 * and `DELETE /v1/responses/{id}`. A response is a run: its id the run's id, its state the fold of the run's log, a
 * conversation (`previous_response_id`) the run's thread. The adapter keeps nothing of its own.
 */

const MODEL_OF_MODE = Object.fromEntries(Object.entries(MODELS).map(([model, mode]) => [mode, model]))

/** The response's status, and why it is incomplete or failed, from the run's. */
const stateOf = (run: RunModel) => {
  const r = run.result
  const typed = run.record.started !== undefined && r.finalAnswer?.data === undefined && r.errorCode === "OUTPUT_SCHEMA"
  switch (run.status) {
    case "QUEUED":
      return { status: "queued" as const }
    case "RUNNING":
      return { status: "in_progress" as const }
    case "AWAITING_INPUT":
      return { status: "incomplete" as const, reason: "awaiting_input" }
    case "CONVERGED":
      return { status: "completed" as const }
    case "CANCELLED":
      return { status: "cancelled" as const }
    case "NOT_CONVERGED":
      return r.finalAnswer !== undefined && !typed
        ? { status: "incomplete" as const, reason: r.terminationReason ?? "not_converged" }
        : { status: "failed" as const }
    default:
      return { status: "failed" as const }
  }
}

/** What a run waiting for a person asks, for a client that cannot answer it here. */
const waitingNote = (run: RunModel) => {
  const asked = run.events.findLast(asks)
  return asked === undefined ?
    "" :
    `\n\n[${
      requestMessage(asked)
    } The run waits: answer it through /graphql (respondToApproval, provideGuidance) or \`aeon approve\`.]`
}

const outputTextOf = (run: RunModel) =>
  (run.result.finalAnswer?.answerText ?? "") +
  (run.status === "AWAITING_INPUT" ? waitingNote(run) : "")

const messageItem = (runId: string, text: string, done: boolean) => ({
  type: "message",
  id: `msg_${runId}`,
  status: done ? "completed" : "in_progress",
  role: "assistant",
  content: done ? [{ type: "output_text", text, annotations: [] }] : []
})

/** The response object of a run, as the Responses API defines it. */
export const responseObject = (
  run: RunModel,
  request?: { readonly background?: boolean; readonly store?: boolean }
) => {
  const started = run.record.started
  const state = stateOf(run)
  const usage = run.result.usage
  const ended = state.status !== "queued" && state.status !== "in_progress"
  const tags = started?.tags ?? []
  const failed = state.status === "failed"
  return {
    id: run.id,
    object: "response",
    created_at: Math.floor(run.createdAt.getTime() / 1000),
    status: state.status,
    model: MODEL_OF_MODE[started?.mode ?? "AUTO"] ?? "aeon",
    output: ended && !failed ? [messageItem(run.id, outputTextOf(run), true)] : [],
    usage: {
      input_tokens: usage.inputTokens,
      input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
      output_tokens: usage.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.inputTokens + usage.outputTokens
    },
    error: failed
      ? {
        code: run.result.errorCode?.toLowerCase() ?? `run_${run.status.toLowerCase()}`,
        message: `the run ended ${run.status}${run.result.error ? `: ${run.result.error}` : ""} (run ${run.id})`
      }
      : null,
    incomplete_details: "reason" in state ? { reason: state.reason } : null,
    instructions: started?.instructions ?? null,
    metadata: Object.fromEntries(
      tags.flatMap((
        t
      ) => (t.startsWith("meta:") && t.includes("=")
        ? [[t.slice(5, t.indexOf("=")), t.slice(t.indexOf("=") + 1)]]
        : [])
      )
    ),
    parallel_tool_calls: false,
    tool_choice: "none",
    tools: [],
    temperature: null,
    top_p: null,
    background: request?.background ?? false,
    store: request?.store ?? true,
    text: { format: { type: "text" } }
  }
}

/**
 * The numbering of a response's stream events (`sequence_number`), made from the run's log so that a stream resumed
 * later (`starting_after`) numbers the same events alike: the four opening events 0–3; a text delta 4 + the offset
 * of its last character + 1 (so the text a client has is `starting_after - 4` characters); the closing events after.
 */
const OPENING = 4

/** The run's response as stream events from `startingAfter` on: `[sequence_number, type, body]`. */
async function* streamEvents(
  items: AsyncIterable<RunItem>,
  runNow: () => Promise<RunModel>,
  first: RunModel,
  request: { readonly background?: boolean; readonly store?: boolean },
  textFrom: number
) {
  const itemId = `msg_${first.id}`
  const opening = [
    ["response.created", { response: responseObject(first, request) }],
    ["response.in_progress", { response: { ...responseObject(first, request), status: "in_progress" } }],
    ["response.output_item.added", { output_index: 0, item: messageItem(first.id, "", false) }],
    ["response.content_part.added", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] }
    }]
  ] as const
  for (const [i, [type, body]] of opening.entries()) yield [i, type, body] as const
  let offset = textFrom
  for await (const item of items) {
    const delta = item._tag === "Text" ? item.delta : item._tag === "TextRestarted" ? `\n\n${item.text}` : ""
    if (delta === "") continue
    offset += delta.length
    yield [OPENING + offset, "response.output_text.delta", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      delta,
      logprobs: []
    }] as const
  }
  const run = await runNow()
  const state = stateOf(run)
  const whole = outputTextOf(run)
  // what the deltas did not carry (a waiting run's note; an answer given whole at its end)
  const rest = whole.length > offset ? whole.slice(offset) : ""
  if (rest !== "") {
    offset += rest.length
    yield [OPENING + offset, "response.output_text.delta", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      delta: rest,
      logprobs: []
    }] as const
  }
  const end = OPENING + offset
  const part = { type: "output_text", text: whole, annotations: [] }
  if (state.status !== "failed") {
    yield [end + 1, "response.output_text.done", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      text: whole,
      logprobs: []
    }] as const
    yield [end + 2, "response.content_part.done", { item_id: itemId, output_index: 0, content_index: 0, part }] as const
    yield [end + 3, "response.output_item.done", { output_index: 0, item: messageItem(run.id, whole, true) }] as const
  }
  const closing = state.status === "completed"
    ? "response.completed"
    : state.status === "failed"
    ? "response.failed"
    : state.status === "cancelled"
    ? "response.cancelled"
    : "response.incomplete"
  yield [end + 4, closing, { response: responseObject(run, request) }] as const
}

const sseFrame = (sequence: number, type: string, body: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...body })}\n\n`

/** A run's response streamed from after `startingAfter` (-1: from the start). */
const streamed = (
  ctx: ProtocolContext,
  run: RunModel,
  request: { readonly background?: boolean; readonly store?: boolean },
  startingAfter: number,
  onEnd?: () => Promise<void>
): Reply =>
  frames(
    { "content-type": "text/event-stream", "x-aeon-run-id": run.id },
    async function*(signal) {
      // the text a client that has the events up to startingAfter has (a delta's number is OPENING + its end offset)
      const textFrom = Math.max(0, startingAfter - OPENING)
      const items = await runExit(ctx.runtime, runItems(run.id, { until: pausesOrEnds, signal, textFrom }))
      if (items._tag === "Failure") throw new Error("the run cannot be followed")
      const now = async () => {
        const read = await runExit(ctx.runtime, Effect.flatMap(RunManager, (m) => m.getOrFail(run.id)))
        if (read._tag === "Failure") throw new Error("the run cannot be read")
        return read.value
      }
      for await (const [sequence, type, body] of streamEvents(items.value, now, run, request, textFrom)) {
        if (sequence > startingAfter) yield sseFrame(sequence, type, body)
      }
      await onEnd?.()
    },
    (f) => sseFrame(0, "error", { code: f.code === "INTERNAL" ? "internal" : f.code, message: f.message, param: null })
  )

/** A run of the caller's, by a response id (another user's is not found: 404, as an unknown id). */
const ownResponse = (ctx: ProtocolContext, userId: string | undefined, id: string) =>
  runExit(ctx.runtime, RunAccess.ownRun(userId, id))

const notFound = (id: string, param?: string) =>
  refuse({ status: 404, code: "not_found", message: `No response found with id '${id}'.`, ...(param ? { param } : {}) })

/**
 * A run erased as forgetRun erases it: whether there was one. A run that has ended here may not be stored as ended
 * yet (its last events are written a moment after they are applied): its erasure waits that moment (up to 3 s).
 */
const forgetEnded = (userId: string | undefined, runId: string) =>
  Effect.flatMap(
    Effect.serviceOption(Threads),
    (threads) =>
      Option.isNone(threads) ? Effect.succeed(false) : threads.value.forgetRun(userId ?? "", runId).pipe(
        Effect.retry({
          while: (e) => e._tag === "RunUnfinishedError",
          schedule: Schedule.spaced("50 millis").pipe(Schedule.upTo("3 seconds"))
        })
      )
  )

/** The run erased once it has ended (`store: false`); a run still waiting for a person is kept. */
const forget = (ctx: ProtocolContext, userId: string | undefined, runId: string) =>
  runExit(ctx.runtime, Effect.ignore(forgetEnded(userId, runId))).then(() => undefined)

/** The thread a response continues: its run's thread, or a new one (every stored response can be continued). */
const threadFor = async (
  ctx: ProtocolContext,
  userId: string | undefined,
  previous: string | undefined,
  store: boolean
) => {
  if (previous === undefined) return store ? { threadId: `resp-${randomUUID()}` } : {}
  const found = await ownResponse(ctx, userId, previous)
  if (found._tag === "Failure") return undefined
  const threadId = found.value.record.started?.threadId
  return threadId !== undefined ? { threadId } : undefined
}

const create = async (ctx: ProtocolContext, { req, signal }: ProtocolRequest): Promise<Reply> => {
  const read = await callerAndBody(ctx, req)
  if ("status" in read) return refuse({ ...read, code: OPENAI_CODES[read.code] ?? read.code })
  const { body, caller } = read
  const request = responsesRequest(body, caller.userId)
  if ("status" in request) return refuse(request)
  const thread = await threadFor(ctx, caller.userId, request.previousResponseId, request.store)
  if (thread === undefined) return notFound(request.previousResponseId ?? "", "previous_response_id")
  const started = await runExit(
    ctx.runtime,
    Effect.flatMap(RunManager, (m) => m.start({ ...request.input, ...thread }, caller.userId))
  )
  if (started._tag === "Failure") return refuse(failureRefusal(publicFailure(started.cause)))
  const run = started.value
  const shown = { background: request.background, store: request.store }
  const erase = request.store ? undefined : () => forget(ctx, caller.userId, run.id)
  if (request.stream) return streamed(ctx, run, shown, -1, erase)
  if (request.background) return json(200, responseObject(run, shown), { "x-aeon-run-id": run.id })
  const items = await runExit(ctx.runtime, runItems(run.id, { until: pausesOrEnds, signal }))
  if (items._tag === "Failure") return refuse(failureRefusal(publicFailure(items.cause)))
  for await (const _ of items.value) { /* to its end, or a person's turn */ }
  const now = await runExit(ctx.runtime, Effect.flatMap(RunManager, (m) => m.getOrFail(run.id)))
  if (now._tag === "Failure") return refuse(failureRefusal(publicFailure(now.cause)))
  if (now.value.status !== "AWAITING_INPUT") await erase?.()
  return json(200, responseObject(now.value, shown), { "x-aeon-run-id": run.id })
}

/** The caller's response the path names, handed to `f`: 401 without a valid key, 404 when it is not the caller's. */
const withResponse = async (
  ctx: ProtocolContext,
  { params, req }: ProtocolRequest,
  f: (run: RunModel, userId: string | undefined) => Promise<Reply>
): Promise<Reply> => {
  const caller = callerOf(ctx.auth, req)
  if (caller === undefined) {
    return refuse({ status: 401, code: "invalid_api_key", message: "missing or invalid API key" })
  }
  const id = params.id ?? ""
  const found = await ownResponse(ctx, caller.userId, id)
  return found._tag === "Failure" ? notFound(id) : f(found.value, caller.userId)
}

/** GET (the response, or its stream from after `starting_after`), DELETE (forgotten) of `/v1/responses/{id}`. */
const one = (ctx: ProtocolContext, request: ProtocolRequest) =>
  withResponse(ctx, request, async (run, userId) => {
    if (request.req.method === "DELETE") {
      const gone = await runExit(ctx.runtime, forgetEnded(userId, run.id))
      if (gone._tag === "Failure") return refuse(failureRefusal(publicFailure(gone.cause)))
      return json(200, { id: run.id, object: "response", deleted: gone.value })
    }
    const query = new URL(request.req.url ?? "/", "http://aeon").searchParams
    if (query.get("stream") === "true") {
      const after = Number(query.get("starting_after") ?? "-1")
      return streamed(ctx, run, {}, Number.isInteger(after) ? after : -1)
    }
    return json(200, responseObject(run))
  })

const cancel = (ctx: ProtocolContext, request: ProtocolRequest) =>
  withResponse(ctx, request, async (run) => {
    const cancelled = await runExit(ctx.runtime, Effect.flatMap(RunManager, (m) => m.cancel(run.id)))
    if (cancelled._tag === "Failure") return refuse(failureRefusal(publicFailure(cancelled.cause)))
    return json(200, responseObject(cancelled.value, { background: true }))
  })

/** The routes. */
export const routes = (ctx: ProtocolContext): ReadonlyArray<Route> => [
  { method: "POST", path: "/v1/responses", handle: (request) => create(ctx, request), refuse: refused },
  { method: ["GET", "DELETE"], path: "/v1/responses/:id", handle: (request) => one(ctx, request), refuse: refused },
  { method: "POST", path: "/v1/responses/:id/cancel", handle: (request) => cancel(ctx, request), refuse: refused }
]
