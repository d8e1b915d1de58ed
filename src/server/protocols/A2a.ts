import {
  type AgentCard,
  type Artifact,
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState
} from "@a2a-js/sdk"
import {
  A2A_LEGACY_PROTOCOL_VERSION,
  duplicateInterfacesForLegacy,
  LEGACY_METHOD_TASKS_RESUBSCRIBE
} from "@a2a-js/sdk/compat/v0_3"
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server"
import {
  A2A_ERROR_CODE,
  ContentTypeNotSupportedError,
  PushNotificationNotSupportedError,
  TaskNotFoundError,
  UnsupportedOperationError
} from "@a2a-js/sdk/errors"
import {
  type A2ARequestHandler,
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
  type ServerCallContext,
  validateVersion
} from "@a2a-js/sdk/server"
import { agentCardHandler } from "@a2a-js/sdk/server/express"
import { Effect, Exit, Runtime } from "effect"
import express from "express"
import { AsyncLocalStorage } from "node:async_hooks"
import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { openRequests } from "../../record/Requests.js"
import { requestMessage } from "../../record/Requests.js"
import { answerRequest, type RequestAnswer } from "../../runs/Answering.js"
import { ownRun } from "../../runs/RunAccess.js"
import { RunManager } from "../../runs/RunManager.js"
import type { RunModel } from "../../runs/RunModel.js"
import { fieldOf, recordField, recordOf } from "../../support/Fields.js"
import {
  attachmentFromUrl,
  callerAndBody,
  conversationTag,
  json,
  type ProtocolContext,
  publicFailure,
  type Reply,
  type Route,
  threadOf
} from "./Http.js"
import { pausesOrEnds, runItems } from "./RunItems.js"

/**
 * A2A (`@a2a-js/sdk`'s server side: protocol 1.0, and 0.3 through its compatibility layer): the agent card at
 * `/.well-known/agent-card.json`, JSON-RPC at `/a2a`. A run is a task (working → completed / failed / canceled;
 * input-required while it waits for a person, answered by the next message on the task), its answer an artifact, its
 * context the message's contextId — its thread: the next message on it is the conversation's next turn (kept as the
 * run's `context:` tag too). The request handler is Aeon's own over the run
 * manager: the SDK's task store is not used, the run's log is the task's only state.
 */

const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain"
})

const agentMessage = (task: { id: string; contextId: string }, text: string): Message => ({
  messageId: randomUUID(),
  contextId: task.contextId,
  taskId: task.id,
  role: Role.ROLE_AGENT,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: []
})

const CONTEXT_TAG = "context:"
const contextOf = (run: RunModel) =>
  run.record.started?.tags?.find((t) => t.startsWith(CONTEXT_TAG))?.slice(CONTEXT_TAG.length) ?? run.id

const stateOf = (run: RunModel): TaskState => {
  switch (run.status) {
    case "QUEUED":
      return TaskState.TASK_STATE_SUBMITTED
    case "RUNNING":
      return TaskState.TASK_STATE_WORKING
    case "AWAITING_INPUT":
      return TaskState.TASK_STATE_INPUT_REQUIRED
    case "CANCELLED":
      return TaskState.TASK_STATE_CANCELED
    // not converged: the run could not stand behind an answer (a budget ran out, the checks never agreed); its best
    // answer is kept as the artifact, labeled, and the status message says why
    case "FAILED":
    case "NOT_CONVERGED":
      return TaskState.TASK_STATE_FAILED
    case "CONVERGED":
      return run.result.finalAnswer ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_FAILED
  }
}

/** Why a run that ended without a converged answer ended, in words (the task's status message). */
const endedWhy = (run: RunModel) => {
  const r = run.result
  const reason = r.ttlExpiration?.exhausted
    ? `${r.terminationReason ?? "budget_exhausted"}: ${r.ttlExpiration.exhausted}`
    : r.terminationReason
  return `the run ended ${run.status}${reason ? ` (${reason})` : ""}${r.error ? `: ${r.error}` : ""}${
    run.status === "NOT_CONVERGED" && r.finalAnswer ? "; its best answer, not converged, is the artifact answer" : ""
  }`
}

const ANSWER_ARTIFACT = "answer"

const dataPart = (value: unknown): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json"
})

/**
 * The answer as an artifact; one the run did not converge on is labeled so (its description and metadata). A typed
 * run's (an output schema) carries its value as a data part after the text.
 */
const answerArtifact = (text: string, converged = true, data?: unknown): Artifact => ({
  artifactId: ANSWER_ARTIFACT,
  name: "answer",
  description: converged ? "the run's final answer" : "the run's best answer: NOT CONVERGED, not validated",
  parts: data === undefined ? [textPart(text)] : [textPart(text), dataPart(data)],
  metadata: converged ? undefined : { converged: false },
  extensions: []
})

/** The task a run is now: its state, what it waits for or why it failed, its answer. */
export const taskOf = (run: RunModel): Task => {
  const ids = { id: run.id, contextId: contextOf(run) }
  const state = stateOf(run)
  const [waiting] = openRequests(run.record)
  const said = state === TaskState.TASK_STATE_INPUT_REQUIRED && waiting
    ? requestMessage(waiting)
    : state === TaskState.TASK_STATE_FAILED
    ? endedWhy(run)
    : undefined
  const answer = run.result.finalAnswer?.answerText
  const data = run.result.finalAnswer?.data
  return {
    ...ids,
    status: { state, message: said ? agentMessage(ids, said) : undefined, timestamp: run.updatedAt.toISOString() },
    artifacts: answer ? [answerArtifact(answer, run.status !== "NOT_CONVERGED", data)] : [],
    history: [],
    metadata: { aeonStatus: run.status }
  }
}

const userOf = (context: ServerCallContext) => context.user?.userName || undefined

const textOfMessage = (m: Message | undefined) =>
  (m?.parts ?? []).flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join("")

/** The message's file parts (bytes or a URL): the task's attachments. */
const filesOf = (m: Message | undefined) => {
  const attachments = (m?.parts ?? []).flatMap((p) =>
    p.content?.$case === "raw"
      ? [{
        mediaType: p.mediaType || "application/octet-stream",
        data: Buffer.from(p.content.value).toString("base64"),
        ...(p.filename ? { name: p.filename } : {})
      }]
      : p.content?.$case === "url"
      ? [attachmentFromUrl(p.content.value, p.mediaType || undefined, p.filename || undefined)]
      : []
  )
  return attachments.length > 0 ? { attachments } : {}
}

/** A message on a waiting task as the answer to its request: a data part's `{ action, … }`, else its words. */
const answerOf = (m: Message | undefined, guidance: boolean): RequestAnswer => {
  const data = (m?.parts ?? []).find((p) => p.content?.$case === "data")?.content
  if (data?.$case === "data" && typeof data.value === "object" && data.value !== null) {
    return data.value
  }
  const text = textOfMessage(m).trim()
  if (guidance) return { action: "guide", text }
  const [word = "", ...rest] = text.split(/\s+/)
  const refused = /^(reject|refuse|no|deny)\b/i.test(word)
  return refused
    ? { action: "reject", reason: rest.join(" ") || "refused over A2A" }
    : { action: /^(approve|yes|ok)\b/i.test(word) ? "approve" : word.toLowerCase() }
}

/** A JSON Schema as a data part carries it: the part's media type says it is one, or its value is `{ outputSchema }`. */
const schemaOfPart = (p: Part): unknown => {
  if (p.content?.$case !== "data") return undefined
  const value: unknown = p.content.value
  return p.mediaType === "application/schema+json" ? value : fieldOf(value, "outputSchema")
}

/**
 * The schema the answer of a new task must meet, as the message carries it: its metadata's `outputSchema`, or a data
 * part (`application/schema+json`, or `{ "outputSchema": … }`); the request's `metadata.aeon.outputSchema` otherwise.
 */
const schemaOfMessage = (m: Message | undefined): unknown =>
  fieldOf(m?.metadata, "outputSchema") ??
    (m?.parts ?? []).map(schemaOfPart).find((s) => s !== undefined)

/** Starts the message's task, or answers the request its task waits for: the run and the log's offset to follow. */
const beginTask = (params: SendMessageRequest, userId: string | undefined) =>
  Effect.gen(function*() {
    const message = params.message
    if (message?.taskId) {
      const found = yield* ownRun(userId, message.taskId)
      const [asked] = openRequests(found.record)
      if (!asked) return { run: found, fromSeq: afterLast(found) }
      yield* answerRequest(
        found.id,
        asked.requestId,
        answerOf(message, asked._tag === "GuidanceRequested"),
        `a2a:${userId ?? "user"}`
      )
      return { run: found, fromSeq: asked.seq + 1 }
    }
    const options = recordField(params.metadata, "aeon") ?? {}
    const contextId = message?.contextId || randomUUID()
    const outputSchema = schemaOfMessage(message)
    const started = yield* (yield* RunManager).start({
      ...options,
      ...(outputSchema !== undefined ? { outputSchema } : {}),
      task: textOfMessage(message),
      ...filesOf(message),
      // the context is the thread: the next message on it continues the conversation
      ...threadOf(contextId),
      tags: ["a2a", conversationTag("context", contextId)],
      ...(userId !== undefined ? { userId } : {})
    }, userId)
    return { run: started, fromSeq: 0 }
  })

/** The offset after the run's last event: what a follower from now on reads from. */
const afterLast = (run: RunModel) => (run.events.at(-1)?.seq ?? 0) + 1

type Ids = { readonly taskId: string; readonly contextId: string }

const artifactUpdate = (ids: Ids, artifact: Artifact, append: boolean, lastChunk: boolean): StreamResponse => ({
  payload: { $case: "artifactUpdate", value: { ...ids, artifact, append, lastChunk, metadata: undefined } }
})

const statusUpdate = (ids: Ids, status: Task["status"]): StreamResponse => ({
  payload: { $case: "statusUpdate", value: { ...ids, status, metadata: undefined } }
})

/**
 * The run's updates from `fromSeq` as A2A stream responses (the answer's text as it is written, each phase as a
 * working status), ending where it waits or ends with the task as it is then: its whole answer, its status.
 */
async function* taskUpdates(
  runtime: Runtime.Runtime<RunManager>,
  first: RunModel,
  fromSeq: number,
  userId: string | undefined
): AsyncGenerator<StreamResponse> {
  const ids: Ids = { taskId: first.id, contextId: contextOf(first) }
  const items = await Runtime.runPromise(runtime)(runItems(first.id, { fromSeq, until: pausesOrEnds }))
  let streamed = false
  for await (const item of items) {
    if (item._tag !== "Event") {
      yield artifactUpdate(ids, answerArtifact(item._tag === "Text" ? item.delta : item.text), streamed, false)
      streamed = true
      continue
    }
    const e = item.event
    if (e._tag === "PhaseEntered") {
      const said = agentMessage(
        { id: ids.taskId, contextId: ids.contextId },
        `pass ${e.passNumber}: ${e.phase.toLowerCase()}`
      )
      yield statusUpdate(ids, {
        state: TaskState.TASK_STATE_WORKING,
        message: said,
        timestamp: new Date(e.at).toISOString()
      })
    }
    if (!pausesOrEnds(item)) continue
    const now = taskOf(await Runtime.runPromise(runtime)(ownRun(userId, first.id)))
    const [answer] = now.artifacts
    if (answer) yield artifactUpdate(ids, answer, false, true)
    yield statusUpdate(ids, now.status)
  }
}

/** Aeon's A2A request handler: every method over the run manager, as the caller's user. */
const handlerOf = (runtime: Runtime.Runtime<RunManager>, card: () => AgentCard): A2ARequestHandler => {
  const run = async <A, E>(effect: Effect.Effect<A, E, RunManager>): Promise<A> => {
    const exit = await Runtime.runPromiseExit(runtime)(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const f = publicFailure(exit.cause)
    if (f.code === "RunNotFoundError") throw new TaskNotFoundError(f.message)
    throw new Error(`${f.code}: ${f.message}`)
  }
  const task = (id: string, userId: string | undefined) => run(Effect.map(ownRun(userId, id), taskOf))

  async function* streamOf(
    first: RunModel,
    fromSeq: number,
    userId: string | undefined
  ): AsyncGenerator<StreamResponse> {
    yield { payload: { $case: "task", value: taskOf(first) } }
    yield* taskUpdates(runtime, first, fromSeq, userId)
  }

  return {
    getAgentCard: () => Promise.resolve(card()),
    getAuthenticatedExtendedAgentCard: () => Promise.reject(new UnsupportedOperationError("no extended agent card")),
    sendMessage: async (params, context) => {
      const userId = userOf(context)
      const { fromSeq, run: started } = await run(beginTask(params, userId))
      if (!params.configuration?.returnImmediately) {
        for await (const _ of await run(runItems(started.id, { fromSeq, until: pausesOrEnds }))) continue
      }
      return task(started.id, userId)
    },
    sendMessageStream: async function*(params, context) {
      const userId = userOf(context)
      const { fromSeq, run: started } = await run(beginTask(params, userId))
      yield* streamOf(started, fromSeq, userId)
    },
    getTask: (params, context) => task(params.id, userOf(context)),
    cancelTask: async (params, context) => {
      const userId = userOf(context)
      const found = await run(ownRun(userId, params.id))
      return run(Effect.map(Effect.flatMap(RunManager, (m) => m.cancel(found.id)), taskOf))
    },
    resubscribe: async function*(params, context) {
      const userId = userOf(context)
      const found = await run(ownRun(userId, params.id))
      yield* streamOf(found, afterLast(found), userId)
    },
    listTasks: async (params, context) => {
      const userId = userOf(context)
      const page = await run(Effect.flatMap(RunManager, (m) => m.list({ userId, first: params.pageSize || 50 })))
      const tasks = await Promise.all(page.runs.map((r) => task(r.id, userId)))
      return { tasks, nextPageToken: "", pageSize: tasks.length, totalSize: tasks.length }
    },
    createTaskPushNotificationConfig: () => Promise.reject(new PushNotificationNotSupportedError()),
    getTaskPushNotificationConfig: () => Promise.reject(new PushNotificationNotSupportedError()),
    listTaskPushNotificationConfigs: () => Promise.reject(new PushNotificationNotSupportedError()),
    deleteTaskPushNotificationConfig: () => Promise.reject(new PushNotificationNotSupportedError())
  }
}

/** The agent card, its interface at `base`/a2a (1.0, and 0.3 through the SDK's compatibility layer). */
export const cardAt = (base: string, version: string): AgentCard => ({
  name: "Aeon",
  description: "An adaptive reasoning engine: it plans a task, executes the plan's steps with a model and tools, " +
    "checks what it got and refines the plan until the answer converges or its budget runs out.",
  supportedInterfaces: duplicateInterfacesForLegacy(
    [{ url: `${base}/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    ["JSONRPC"]
  ),
  provider: undefined,
  version,
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain", "application/json"],
  skills: [{
    id: "run-task",
    name: "Run a task within a budget",
    description: "Plans the task, executes it with a model and tools, validates and refines until the answer " +
      "converges or the budget (model calls, tokens, cost, time) runs out; asks for approval where configured. A " +
      "message carrying a JSON Schema — its metadata's outputSchema, or a data part (application/schema+json, or " +
      "{ outputSchema }) — gets its answer as a value of it: a data part (application/json) in the answer artifact, " +
      "after the text. Messages on one contextId are one conversation: each new task sees the ones before it.",
    tags: ["reasoning", "planning", "tools", "budget"],
    examples: ["Compute (17 + 25) * 3 and explain the result"],
    inputModes: ["text/plain"],
    outputModes: ["text/plain", "application/json"],
    securityRequirements: []
  }],
  signatures: []
})

/** The A2A version a request asks for (absent: 0.3, the protocol's version before the header existed). */
const askedVersion = (req: IncomingMessage) => {
  const header = req.headers["a2a-version"]
  return (Array.isArray(header) ? header[0] : header) || undefined
}

/** A JSON-RPC error response to a request whose id is not known (it was not read, or not JSON). */
const rpcError = (code: number, message: string) => ({ jsonrpc: "2.0", id: null, error: { code, message } })

/** The JSON-RPC id of a request read, for the error that answers it. */
const idOf = (body: unknown) => fieldOf(body, "id") ?? null

/**
 * A JSON-RPC request's body, or the error response refusing it (a key, the size limit, JSON, not an object): its
 * status and body.
 */
const rpcBody = async (
  ctx: ProtocolContext,
  req: IncomingMessage
): Promise<
  | { readonly caller: { readonly userId?: string }; readonly body: Record<string, unknown> }
  | { readonly status: number; readonly body: ReturnType<typeof rpcError> }
> => {
  const read = await callerAndBody(ctx, req)
  if (!("status" in read)) {
    const request = recordOf(read.body)
    return request
      ? { caller: read.caller, body: request }
      : { status: 200, body: rpcError(A2A_ERROR_CODE.INVALID_REQUEST, "the body is not a JSON-RPC request object") }
  }
  if (read.status === 401) return { status: 401, body: rpcError(-32001, read.message) }
  return read.status === 413
    ? { status: 413, body: rpcError(A2A_ERROR_CODE.INVALID_REQUEST, read.message) }
    : { status: 200, body: rpcError(A2A_ERROR_CODE.PARSE_ERROR, "Invalid JSON payload.") }
}

/**
 * A stream's responses as SSE frames through the edge's one writer (server/Sse); a failure mid-stream is the
 * JSON-RPC error frame the SDK's own server sends (`event: error`).
 */
const streamed = (
  responses: AsyncIterator<unknown>,
  first: IteratorResult<unknown> | undefined,
  failure: (e: unknown) => unknown
): Reply => ({
  _tag: "Frames",
  headers: { "content-type": "text/event-stream" },
  frames: async function*() {
    if (first && !first.done) yield `data: ${JSON.stringify(first.value)}\n\n`
    for (let next = await responses.next(); !next.done; next = await responses.next()) {
      yield `data: ${JSON.stringify(next.value)}\n\n`
    }
  },
  onFailure: (e) => `event: error\ndata: ${JSON.stringify(failure(e))}\n\n`
})

/**
 * `/a2a`: JSON-RPC through the SDK's own transport handlers — 1.0's, or its 0.3 compatibility layer's for a request
 * asking for 0.3 (or for no version) — on the edge's router: the request read by the edge's body reader within its
 * limit, its caller from its key, a stream's responses framed by the edge's one SSE writer. As the SDK's server does,
 * a stream's first response is awaited before the headers (a failure there is a JSON-RPC error, not a stream), except
 * 0.3's resubscribe, which always streams.
 */
const jsonRpc = async (ctx: ProtocolContext & { readonly version: string }, req: IncomingMessage): Promise<Reply> => {
  const mediaType = req.headers["content-type"]?.split(";", 1)[0]?.trim().toLowerCase()
  if (mediaType !== undefined && mediaType !== "application/json") {
    const error = JsonRpcTransportHandler.mapToJSONRPCError(
      new ContentTypeNotSupportedError(`Unsupported Content-Type "${mediaType}"; expected application/json.`)
    )
    return json(200, { jsonrpc: "2.0", id: null, error })
  }
  const read = await rpcBody(ctx, req)
  if ("status" in read) return json(read.status, read.body, read.status === 401 ? { "www-authenticate": "Bearer" } : {})
  const requestedVersion = askedVersion(req)
  const legacy = (requestedVersion ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION
  const failure = (e: unknown) => ({
    jsonrpc: "2.0",
    id: idOf(read.body),
    error: legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(e)
      : JsonRpcTransportHandler.mapToJSONRPCError(e)
  })
  try {
    const agentCard = cardAt(`http://${req.headers.host ?? "localhost"}`, ctx.version)
    const requestHandler = handlerOf(ctx.runtime, () => agentCard)
    const context = defaultServerCallContextBuilder({
      extensions: undefined,
      user: { isAuthenticated: true, userName: read.caller.userId ?? "" },
      headers: req.headers,
      requestedVersion
    })
    validateVersion(context.requestedVersion, agentCard, "JSONRPC")
    const transport = legacy
      ? new LegacyJsonRpcTransportHandler(requestHandler)
      : new JsonRpcTransportHandler(requestHandler)
    const answer = await transport.handle(read.body, context)
    if (!isAsyncIterable(answer)) return json(200, answer)
    const responses = answer[Symbol.asyncIterator]()
    if (legacy && fieldOf(read.body, "method") === LEGACY_METHOD_TASKS_RESUBSCRIBE) {
      return streamed(responses, undefined, failure)
    }
    return streamed(responses, await responses.next(), failure)
  } catch (e) {
    const error = failure(e)
    return json(error.error.code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200, error)
  }
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value

/**
 * The routes. The agent card is the SDK's own handler (`agentCardHandler`, the one part of the SDK still on express):
 * it alone turns the card into 0.3's shape for a client asking for 0.3, and the SDK exports that conversion only
 * through it.
 */
export const routes = (ctx: ProtocolContext & { readonly version: string }): ReadonlyArray<Route> => {
  // the address each card request was made at, for the card it is answered with (never one shared by all requests)
  const askedAt = new AsyncLocalStorage<string>()
  const cardApp = express()
  cardApp.disable("x-powered-by")
  cardApp.use(
    "/.well-known/agent-card.json",
    agentCardHandler({
      legacyCompat: { enabled: true },
      agentCardProvider: () => Promise.resolve(cardAt(askedAt.getStore() ?? "http://localhost", ctx.version)),
      cache: { maxAge: 0 }
    })
  )
  const cardRoute = (req: IncomingMessage, res: ServerResponse) =>
    askedAt.run(`http://${req.headers.host ?? "localhost"}`, () => cardApp(req, res))
  return [
    {
      method: "POST",
      path: "/a2a",
      handle: ({ req }) => jsonRpc(ctx, req),
      refuse: (status, _code, message) =>
        json(status, rpcError(status === 405 ? A2A_ERROR_CODE.INVALID_REQUEST : A2A_ERROR_CODE.INTERNAL_ERROR, message))
    },
    { method: "GET", path: "/.well-known/agent-card.json", node: cardRoute }
  ]
}
