import { Effect, Option, Predicate } from "effect"
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions"
import type { Model } from "openai/resources/models"
import { parseAgentRef } from "../../agents/Agent.js"
import { Agents } from "../../agents/Agents.js"
import type { Usage } from "../../domain/Budget.js"
import type { RunEvent } from "../../domain/RunEvent.js"
import type { RunMode } from "../../domain/SimpleIteration.js"
import { asks } from "../../record/Requests.js"
import { requestMessage } from "../../record/Requests.js"
import { RunManager } from "../../runs/RunManager.js"
import { fieldOf } from "../../support/Fields.js"
import {
  attachmentsOf,
  callerAndBody,
  callerOf,
  conversationOf,
  frames,
  json,
  type ProtocolContext,
  type ProtocolRequest,
  publicFailure,
  type Reply,
  type Route,
  runExit,
  statusOf,
  textOf
} from "./Http.js"
import { pausesOrEnds, type RunItem, runItems } from "./RunItems.js"

/**
 * Aeon as an OpenAI model: `POST /v1/chat/completions` and `GET /v1/models`, for chat UIs and OpenAI clients. The
 * last user message is the run's task, the conversation before it its context, the system messages its instructions
 * (the run's `instructions`: the plan and answer calls' system prompt); the model names the run's mode; the
 * run's id is the completion's id (and `x-aeon-run-id`). Shapes are the `openai` package's own types.
 */
export const MODELS: Readonly<Record<string, RunMode>> = { aeon: "AUTO", "aeon-simple": "SIMPLE", "aeon-full": "FULL" }

export type Refusal = {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly param?: string
}

/** An error as OpenAI answers one (`{ error: { message, type, param, code } }`). */
export const errorBody = (r: Omit<Refusal, "status">) => ({
  error: {
    message: r.message,
    type: r.code === "invalid_api_key" ? "authentication_error" : r.code.startsWith("run_") || r.code === "internal"
      ? "server_error"
      : "invalid_request_error",
    param: r.param ?? null,
    code: r.code
  }
})
export const refuse = (r: Refusal): Reply =>
  json(r.status, errorBody(r), r.status === 401 ? { "www-authenticate": "Bearer" } : {})

/** A refused request's code in OpenAI's words. */
export const OPENAI_CODES: Readonly<Record<string, string>> = {
  UNAUTHENTICATED: "invalid_api_key",
  AGENT_NOT_FOUND: "model_not_found",
  PAYLOAD_TOO_LARGE: "request_too_large",
  BAD_REQUEST: "invalid_json",
  METHOD_NOT_ALLOWED: "method_not_allowed",
  INTERNAL: "internal"
}

/** A failure in OpenAI's words: its status, and its code mapped where OpenAI has a word of its own (an agent: a model). */
export const failureRefusal = (f: ReturnType<typeof publicFailure>): Refusal => ({
  status: statusOf(f.code),
  code: OPENAI_CODES[f.code] ?? f.code,
  message: f.message
})

/** A JSON object, or JSON text of one (OpenAI's metadata values are strings). */
export const objectOf = (v: unknown): Record<string, unknown> | undefined => {
  if (typeof v === "string") {
    try {
      return objectOf(JSON.parse(v))
    } catch {
      return undefined
    }
  }
  return Predicate.isRecord(v) ? v : undefined
}

interface ChatRequest {
  readonly model: string
  readonly stream: boolean
  readonly includeUsage: boolean
  readonly input: Record<string, unknown>
}

/**
 * The run's instructions from a request: what it gives as such (the Responses API's `instructions`), then its system
 * or developer messages — the caller's words, trusted as its task is.
 */
export const instructionsOf = (
  messages: ReadonlyArray<{ readonly role: string; readonly text: string }>,
  given?: unknown
) =>
  [
    typeof given === "string" ? given : "",
    ...messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => m.text)
  ]
    .filter((t) => t.trim() !== "")
    .join("\n\n")

/** The run's budget: `metadata.budget` (JSON text, as OpenAI's metadata values are strings), `maxTokens` its tokens. */
export const budgetOf = (metadata: unknown, maxTokens: unknown) => {
  const budget: Record<string, unknown> = { ...objectOf(objectOf(metadata)?.budget) }
  if (maxTokens !== undefined && maxTokens !== null) budget.maxTokens = maxTokens
  return budget
}

/** An OpenAI request's run input: its conversation, files, instructions, mode, budget, labels and output format. */
export const runInputOf = (r: {
  readonly chat: { readonly task: string; readonly history: ReadonlyArray<unknown> }
  readonly attachments: ReadonlyArray<unknown>
  readonly instructions: string
  /** None: the agent's. */
  readonly mode: RunMode | undefined
  readonly budget: Record<string, unknown>
  readonly tags: ReadonlyArray<string>
  readonly format: object
  readonly userId: string | undefined
}): Record<string, unknown> => ({
  task: r.chat.task,
  ...(r.chat.history.length > 0 ? { history: r.chat.history } : {}),
  ...(r.attachments.length > 0 ? { attachments: r.attachments } : {}),
  ...(r.instructions !== "" ? { instructions: r.instructions } : {}),
  ...(r.mode !== undefined ? { mode: r.mode } : {}),
  ...(Object.keys(r.budget).length > 0 ? { budget: r.budget } : {}),
  tags: r.tags,
  ...r.format,
  ...(r.userId !== undefined ? { userId: r.userId } : {})
})

/** The request as a run's input (checked by the run's own schema when it starts), or why it cannot be one. */
export const chatRequest = (body: unknown, userId: string | undefined): ChatRequest | Refusal => {
  const b = objectOf(body) ?? {}
  const model = typeof b.model === "string" ? b.model : ""
  const mode = MODELS[model]
  // any other model names an agent (its mode is the agent's): one the caller has not is model_not_found at the start
  const agent = mode === undefined && parseAgentRef(model) !== undefined ? model : undefined
  if (mode === undefined && agent === undefined) {
    return {
      status: 404,
      code: "model_not_found",
      param: "model",
      message: `The model '${model}' does not exist: use one of ${Object.keys(MODELS).join(", ")}`
    }
  }
  const messages = Array.isArray(b.messages) ? b.messages : []
  const chat = conversationOf(messages.map((m: { role?: unknown; content?: unknown }) => ({
    role: String(m?.role ?? ""),
    text: textOf(m?.content)
  })))
  const lastUser: unknown = [...messages].reverse().find((m: unknown) => fieldOf(m, "role") === "user")
  const attachments = attachmentsOf(fieldOf(lastUser, "content"))
  if (chat === undefined) {
    return {
      status: 400,
      code: "invalid_request",
      param: "messages",
      message: "messages must hold a user message with text"
    }
  }
  const format = outputFormat(b.response_format)
  if ("status" in format) return format
  const instructions = instructionsOf(
    messages.map((m: { role?: unknown; content?: unknown }) => ({
      role: String(m?.role ?? ""),
      text: textOf(m?.content)
    }))
  )
  const budget = budgetOf(b.metadata, b.max_completion_tokens ?? b.max_tokens)
  return {
    model,
    stream: b.stream === true,
    includeUsage: objectOf(b.stream_options)?.include_usage === true,
    input: {
      ...runInputOf({ chat, attachments, instructions, mode, budget, tags: ["openai"], format, userId }),
      ...(agent !== undefined ? { agent } : {})
    }
  }
}

/**
 * `response_format` as the run's output schema: `json_schema` its schema (`strict` as given: OpenAI's default is not
 * strict), `json_object` any JSON object, `text` (or none) a text answer. The content is then the value's JSON text.
 */
const outputFormat = (
  raw: unknown
): { readonly outputSchema?: object; readonly outputStrict?: boolean } | Refusal => {
  const f = objectOf(raw)
  const refused = (message: string): Refusal => ({
    status: 400,
    code: "invalid_request",
    param: "response_format",
    message
  })
  if (raw === undefined || raw === null || f?.type === "text") return {}
  if (f?.type === "json_object") return { outputSchema: { type: "object" }, outputStrict: false }
  if (f?.type !== "json_schema") return refused("response_format.type must be one of text, json_object, json_schema")
  const spec = objectOf(f.json_schema)
  const schema = objectOf(spec?.schema)
  if (spec === undefined || schema === undefined) {
    return refused("response_format.json_schema.schema must be a JSON Schema object")
  }
  return { outputSchema: schema, outputStrict: spec.strict === true }
}

const usageOf = (u: Usage) => ({
  prompt_tokens: u.inputTokens,
  completion_tokens: u.outputTokens,
  total_tokens: u.inputTokens + u.outputTokens,
  prompt_tokens_details: { cached_tokens: u.cachedTokens ?? 0 }
})

type Finished = Extract<RunEvent, { _tag: "RunFinished" }>

/** Why the completion stopped: converged is "stop"; a budget that ran out, "length". */
const finishReason = (f: Finished | undefined): "stop" | "length" =>
  f?.terminationReason === "budget_exhausted" || f?.terminationReason === "ttl_expired" ? "length" : "stop"

/** What a client that cannot answer a person's request reads when the run stops for one. */
const waitingNote = (item: RunItem) =>
  item._tag === "Event" && asks(item.event)
    ? `\n\n[${
      requestMessage(item.event)
    } The run waits: answer it through /graphql (respondToApproval, provideGuidance) or \`aeon approve\`.]`
    : ""

/**
 * Whether the run answered: converged, or ended with a best answer made of what its steps produced (a budget ran
 * out); a typed run (response_format), only with its value — no value without convergence.
 */
const answered = (f: Finished, typed: boolean) =>
  f.finalAnswer !== undefined && f.errorCode !== "OUTPUT_SCHEMA" &&
  (typed ? f.finalAnswer.data !== undefined : f.status === "CONVERGED" || f.finalAnswer.usedStepIds.length > 0)

/** A run that ended with no answer, or with no value of its response_format's schema: an error, not a completion. */
const failedRun = (f: Finished | undefined, request: ChatRequest) =>
  f !== undefined && !answered(f, request.input.outputSchema !== undefined)

/** A run that ended with no answer is an error in OpenAI's shape. */
const runFailure = (f: Finished) => ({
  code: f.errorCode !== undefined ? f.errorCode.toLowerCase() : `run_${f.status.toLowerCase()}`,
  message: `the run ended ${f.status} (${f.terminationReason})${
    f.error ? `: ${f.error}` : f.finalAnswer ? `: ${f.finalAnswer.answerText.slice(0, 300)}` : ""
  } (run ${f.runId})`
})

interface Collected {
  readonly text: string
  readonly finished?: Finished | undefined
}

const collect = async (items: AsyncIterable<RunItem>) => {
  let acc: Collected = { text: "" }
  for await (const item of items) {
    if (item._tag === "Text") acc = { ...acc, text: acc.text + item.delta }
    else if (item._tag === "TextRestarted") acc = { ...acc, text: item.text }
    else if (item.event._tag === "RunFinished") acc = { ...acc, finished: item.event }
    else acc = { ...acc, text: acc.text + waitingNote(item) }
  }
  return acc
}

const completion = (runId: string, model: string, created: number, c: Collected): ChatCompletion => ({
  id: runId,
  object: "chat.completion",
  created,
  model,
  choices: [{
    index: 0,
    message: { role: "assistant", content: c.text, refusal: null },
    finish_reason: finishReason(c.finished),
    logprobs: null
  }],
  ...(c.finished ? { usage: usageOf(c.finished.usage) } : {})
})

/** The run's items as `chat.completion.chunk` frames, then `[DONE]`. */
async function* chunkFrames(items: AsyncIterable<RunItem>, runId: string, request: ChatRequest, created: number) {
  const chunk = (
    delta: ChatCompletionChunk.Choice.Delta,
    finish: ChatCompletionChunk.Choice["finish_reason"] = null
  ): ChatCompletionChunk => ({
    id: runId,
    object: "chat.completion.chunk",
    created,
    model: request.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }]
  })
  const frame = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`
  const framesOf = (item: RunItem): Array<string> => {
    if (item._tag === "Text") return [frame(chunk({ content: item.delta }))]
    if (item._tag === "TextRestarted") return [frame(chunk({ content: `\n\n${item.text}` }))]
    const event = item.event
    if (asks(event)) return [frame(chunk({ content: waitingNote(item) }, "stop")), "data: [DONE]\n\n"]
    if (event._tag !== "RunFinished") return []
    if (failedRun(event, request)) {
      return [frame(errorBody(runFailure(event))), "data: [DONE]\n\n"]
    }
    return [
      frame(chunk({}, finishReason(event))),
      ...(request.includeUsage ? [frame({ ...chunk({}), choices: [], usage: usageOf(event.usage) })] : []),
      "data: [DONE]\n\n"
    ]
  }
  yield frame(chunk({ role: "assistant", content: "" }))
  for await (const item of items) yield* framesOf(item)
}

const completions = async (ctx: ProtocolContext, { req, signal }: ProtocolRequest): Promise<Reply> => {
  const read = await callerAndBody(ctx, req)
  if ("status" in read) return refuse({ ...read, code: OPENAI_CODES[read.code] ?? read.code })
  const { body, caller } = read
  const request = chatRequest(body, caller.userId)
  if ("status" in request) return refuse(request)
  const started = await runExit(ctx.runtime, Effect.flatMap(RunManager, (m) => m.start(request.input, caller.userId)))
  if (started._tag === "Failure") return refuse(failureRefusal(publicFailure(started.cause)))
  const run = started.value
  const created = Math.floor(run.createdAt.getTime() / 1000)
  const headers = { "x-aeon-run-id": run.id }
  const following = (signal: AbortSignal) => runExit(ctx.runtime, runItems(run.id, { until: pausesOrEnds, signal }))
  if (request.stream) {
    return frames({ "content-type": "text/event-stream", ...headers }, async function*(signal) {
      const items = await following(signal)
      if (items._tag === "Failure") throw new Error("the run cannot be followed")
      yield* chunkFrames(items.value, run.id, request, created)
    }, (f) => `data: ${JSON.stringify(errorBody(failureRefusal(f)))}\n\n`)
  }
  const items = await following(signal)
  if (items._tag === "Failure") return refuse(failureRefusal(publicFailure(items.cause)))
  const collected = await collect(items.value)
  if (collected.finished && failedRun(collected.finished, request)) {
    // a guardrail's block is the request's own (asking again is blocked again): a 400, which clients do not retry
    return refuse({
      status: collected.finished.errorCode === "GUARDRAIL" ? 400 : 502,
      ...runFailure(collected.finished)
    })
  }
  return json(200, completion(run.id, request.model, created, collected), headers)
}

/** The modes as models, then each agent the caller may run (its name: `model: "<agent>"` runs it). */
const models = async (ctx: ProtocolContext, userId: string | undefined) => {
  const agents = await runExit(
    ctx.runtime,
    Effect.flatMap(Effect.serviceOption(Agents), (a) => (Option.isSome(a) ? a.value.list(userId) : Effect.succeed([])))
  )
  if (agents._tag === "Failure") return refuse(failureRefusal(publicFailure(agents.cause)))
  return json(200, {
    object: "list",
    data: [
      ...Object.keys(MODELS).map((id): Model => ({ id, object: "model", created: 0, owned_by: "aeon" })),
      ...agents.value.map((a): Model => ({
        id: a.name,
        object: "model",
        created: Math.floor(a.createdAt.getTime() / 1000),
        owned_by: a.owner === "" ? "aeon" : a.owner
      }))
    ]
  })
}

/** A refusal in OpenAI's words, its code mapped where OpenAI has a word of its own. */
export const refused = (status: number, code: string, message: string) =>
  refuse({ status, code: OPENAI_CODES[code] ?? code, message })

/** The routes. */
export const routes = (ctx: ProtocolContext): ReadonlyArray<Route> => [
  {
    method: "GET",
    path: "/v1/models",
    handle: ({ req }) => {
      const caller = callerOf(ctx.auth, req)
      return caller
        ? models(ctx, caller.userId)
        : Promise.resolve(refuse({ status: 401, code: "invalid_api_key", message: "missing or invalid API key" }))
    },
    refuse: refused
  },
  { method: "POST", path: "/v1/chat/completions", handle: (request) => completions(ctx, request), refuse: refused }
]
