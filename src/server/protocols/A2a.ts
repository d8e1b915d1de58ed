import type { AgentCard } from "@a2a-js/sdk"
import {
  A2A_LEGACY_PROTOCOL_VERSION,
  duplicateInterfacesForLegacy,
  LEGACY_METHOD_TASKS_RESUBSCRIBE
} from "@a2a-js/sdk/compat/v0_3"
import { LegacyJsonRpcTransportHandler, LegacyRestTransportHandler } from "@a2a-js/sdk/compat/v0_3/server"
import { A2A_ERROR_CODE, ContentTypeNotSupportedError } from "@a2a-js/sdk/errors"
import { defaultServerCallContextBuilder, JsonRpcTransportHandler, validateVersion } from "@a2a-js/sdk/server"
import { Effect, Option, Runtime } from "effect"
import { createHash } from "node:crypto"
import type { AgentVersion } from "../../agents/Agent.js"
import { Agents } from "../../agents/Agents.js"
import { fieldOf, recordOf } from "../../support/Fields.js"
import { handlerOf } from "./A2aTasks.js"
import {
  callerAndBody,
  callerOf,
  empty,
  type HttpRequestView,
  json,
  type ProtocolContext,
  type ProtocolRequest,
  type Reply,
  type Route
} from "./Http.js"

/**
 * A2A's edge (`@a2a-js/sdk`'s server side: protocol 1.0, and 0.3 through its compatibility layer): the agent card at
 * `/.well-known/agent-card.json`, JSON-RPC at `/a2a` through the SDK's transport handlers over Aeon's request handler
 * (A2aTasks: a run is a task).
 */

/** An agent's own card: its name and description, a skill per tool (or its one skill), its interface under it. */
const agentCardOf = (card: AgentCard, base: string, agent: AgentVersion): AgentCard => ({
  ...card,
  name: agent.name,
  description: agent.definition.description ?? `The Aeon agent ${agent.name} (version ${agent.version}).`,
  supportedInterfaces: duplicateInterfacesForLegacy(
    [{ url: `${base}/a2a/agents/${agent.name}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    ["JSONRPC"]
  ),
  skills: (agent.definition.tools ?? []).length === 0 ? card.skills : (agent.definition.tools ?? []).map((t) => ({
    id: t.replace(/[^A-Za-z0-9_.-]/g, "-"),
    name: t,
    description: `${agent.name} works with ${t}`,
    tags: ["tool"],
    examples: [],
    inputModes: ["text/plain"],
    outputModes: ["text/plain", "application/json"],
    securityRequirements: []
  }))
})

/**
 * The agent card, its interface at `base`/a2a (1.0, and 0.3 through the SDK's compatibility layer); an agent's, its
 * own at `base`/a2a/agents/<name>.
 */
export const cardAt = (base: string, version: string, agent?: AgentVersion): AgentCard => {
  const card = serverCard(base, version)
  return agent === undefined ? card : agentCardOf(card, base, agent)
}

const serverCard = (base: string, version: string): AgentCard => ({
  name: "Aeon",
  description: "An adaptive reasoning engine: it plans a task, executes the plan's steps with a model and tools, " +
    "checks what it got and refines the plan until the answer converges or its budget runs out.",
  supportedInterfaces: duplicateInterfacesForLegacy(
    [{ url: `${base}/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    ["JSONRPC"]
  ),
  provider: undefined,
  version,
  capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
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
const askedVersion = (req: HttpRequestView) => {
  return req.headers["a2a-version"] || undefined
}

/** Whether a request is answered in 0.3's words: it asks for 0.3, or for no version (as the SDK's server decides). */
const asksForLegacy = (req: HttpRequestView) =>
  (askedVersion(req) ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION

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
  req: HttpRequestView
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
  failure: (e: unknown) => unknown,
  leaving: AbortController
): Reply => ({
  _tag: "Frames",
  headers: { "content-type": "text/event-stream" },
  frames: async function*(signal) {
    // the client going away ends the task's updates (their follower) at once, not at the run's next item
    signal.addEventListener("abort", () => leaving.abort(), { once: true })
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
const jsonRpc = async (
  ctx: ProtocolContext & { readonly version: string },
  { params, req, signal }: ProtocolRequest
): Promise<Reply> => {
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
  const legacy = asksForLegacy(req)
  const failure = (e: unknown) => ({
    jsonrpc: "2.0",
    id: idOf(read.body),
    error: legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(e)
      : JsonRpcTransportHandler.mapToJSONRPCError(e)
  })
  try {
    const agent = await agentNamed(ctx, params.name, read.caller.userId)
    if (agent === null) return json(404, rpcError(-32001, `no agent ${params.name ?? ""}`))
    const agentCard = cardAt(`http://${req.headers.host ?? "localhost"}`, ctx.version, agent)
    // aborted when the client goes away: before the reply, the request's signal; after, its frames'
    const leaving = new AbortController()
    signal.addEventListener("abort", () => leaving.abort(), { once: true })
    const requestHandler = handlerOf(ctx.runtime, () => agentCard, leaving.signal, agent?.name)
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
      return streamed(responses, undefined, failure, leaving)
    }
    return streamed(responses, await responses.next(), failure, leaving)
  } catch (e) {
    const error = failure(e)
    return json(error.error.code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200, error)
  }
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value

/**
 * The agent card at the address the request was made at, in the version it asks for. 0.3's is made by the SDK's own
 * 0.3 layer (the card answer of its `LegacyRestTransportHandler`: the SDK exports its card conversion nowhere else but
 * in its express handler), with the 1.0 interfaces kept beside it as the SDK's card handler keeps them. A weak ETag
 * of the body answers a client that has the card already with 304; `Vary: A2A-Version`, never cached unchecked.
 */
const agentCard = async (
  ctx: ProtocolContext & { readonly version: string },
  { params, req, signal }: ProtocolRequest
): Promise<Reply> => {
  const caller = callerOf(ctx.auth, req)
  const agent = params.name === undefined ? undefined : await agentNamed(ctx, params.name, caller?.userId)
  if (agent === null || (params.name !== undefined && caller === undefined)) {
    return json(404, { error: `no agent ${params.name ?? ""}` })
  }
  const card = cardAt(`http://${req.headers.host ?? "localhost"}`, ctx.version, agent)
  const body = asksForLegacy(req) ? await legacyCard(ctx, card, signal) : card
  const etag = `W/"${createHash("sha256").update(JSON.stringify(body)).digest("hex").slice(0, 16)}"`
  const headers = { etag, vary: "A2A-Version", "cache-control": "no-cache" }
  const held = req.headers["if-none-match"]?.split(",").map((tag) => tag.trim()) ?? []
  return held.includes(etag) || held.includes("*") ? empty(304, headers) : json(200, body, headers)
}

const legacyCard = async (ctx: ProtocolContext, card: AgentCard, signal: AbortSignal) => {
  const cardAnswering = {
    ...handlerOf(ctx.runtime, () => card, signal),
    getAuthenticatedExtendedAgentCard: () => Promise.resolve(card)
  }
  const context = defaultServerCallContextBuilder({
    extensions: undefined,
    user: undefined,
    headers: {},
    requestedVersion: A2A_LEGACY_PROTOCOL_VERSION
  })
  const legacy = await new LegacyRestTransportHandler(cardAnswering).getAuthenticatedExtendedAgentCard(context)
  return { ...legacy, supportedInterfaces: structuredClone(card.supportedInterfaces) }
}

/**
 * The agent `name` as the caller sees it: undefined when no name is asked (the server's own card), null when the
 * caller has no such agent.
 */
const agentNamed = async (ctx: ProtocolContext, name: string | undefined, userId: string | undefined) => {
  if (name === undefined) return undefined
  const found = await Runtime.runPromise(ctx.runtime)(
    Effect.flatMap(
      Effect.serviceOption(Agents),
      (a) => Option.isSome(a) ? a.value.get(userId, name) : Effect.succeed(Option.none())
    ).pipe(
      Effect.orElseSucceed(() => Option.none())
    )
  )
  return Option.getOrNull(found)
}

const rpcRefusal = (status: number, _code: string, message: string) =>
  json(status, rpcError(status === 405 ? A2A_ERROR_CODE.INVALID_REQUEST : A2A_ERROR_CODE.INTERNAL_ERROR, message))

/** The routes: JSON-RPC and the agent card, the server's and each agent's. */
export const routes = (ctx: ProtocolContext & { readonly version: string }): ReadonlyArray<Route> => [
  { method: "POST", path: "/a2a", handle: (request) => jsonRpc(ctx, request), refuse: rpcRefusal },
  { method: "POST", path: "/a2a/agents/:name", handle: (request) => jsonRpc(ctx, request), refuse: rpcRefusal },
  {
    method: "GET",
    path: "/.well-known/agent-card.json",
    handle: (request) => agentCard(ctx, request),
    refuse: (status, _code, message) => json(status, { error: message })
  },
  {
    method: "GET",
    path: "/a2a/agents/:name/.well-known/agent-card.json",
    handle: (request) => agentCard(ctx, request),
    refuse: (status, _code, message) => json(status, { error: message })
  }
]
