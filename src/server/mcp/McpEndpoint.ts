import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import type { Runtime } from "effect"
import { randomUUID } from "node:crypto"
import type { RunManager } from "../../runs/RunManager.js"
import { tooLargeMessage } from "../Body.js"
import { type AuthConfig, authenticate, HOST_REFUSED, hostAllowed } from "../Security.js"
import * as AeonMcp from "./AeonMcp.js"

/** A refusal in JSON-RPC's words, its Aeon code in `data.code`. */
export const refuse = (
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
  rpcCode = -32000
) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: rpcCode, message, data: { code } }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers }
  })

/** What /mcp answers a body over the limit (the connection closes: the rest is not read). */
export const tooLarge = (maxBodyBytes: number) =>
  refuse(413, "PAYLOAD_TOO_LARGE", tooLargeMessage(maxBodyBytes), { connection: "close" })

/** A session no request has used for this long, and that has no request in progress, is ended. */
const SESSION_IDLE_MS = 30 * 60_000
/** At most this many sessions at once; an initialize beyond them is refused (503) until some end. */
const MAX_SESSIONS = 1_000
/** The largest message /mcp reads (the SDK's own limit). */

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly server: ReturnType<typeof AeonMcp.make>
  /** The API key's user who opened it: a request of another user with its id is not found. */
  readonly userId: string | undefined
  lastSeen: number
  /** Requests in progress (a run_task that follows a long run keeps its session alive). */
  active: number
}

/**
 * `/mcp`: Aeon as an MCP server over Streamable HTTP, behind the same API keys as /graphql (a key bound to a user sees
 * that user's runs only). A client that initializes gets a session (`Mcp-Session-Id`): its requests go to one MCP
 * server, which can ask the client back (elicitation: what a run_task run asks a person); a message sent without
 * initializing is answered statelessly, as before sessions. Sessions live in this process: ended by the client
 * (DELETE), after 30 idle minutes, or when the server stops; behind a load balancer a session's requests must reach
 * the server that opened it.
 */
/** The open sessions of this process, by id. */
const makeSessions = () => {
  const open = new Map<string, Session>()
  const end = (id: string) => {
    const session = open.get(id)
    if (!session) return
    open.delete(id)
    void session.transport.close()
    void session.server.close()
  }
  return {
    get: (id: string) => open.get(id),
    add: (id: string, session: Session) => void open.set(id, session),
    end,
    size: () => open.size,
    /** Ends the sessions idle for SESSION_IDLE_MS with no request in progress. */
    sweep: (now: number) => {
      for (const [id, session] of open) {
        if (session.active === 0 && now - session.lastSeen > SESSION_IDLE_MS) end(id)
      }
    },
    endAll: () => [...open.keys()].forEach(end)
  }
}

/** `/mcp`: the MCP endpoint over HTTP, its sessions in this process. */
export interface McpEndpoint {
  /** A request to /mcp (a fetch-API handler: server/WebRoute hands it over, its body read within the limit). */
  readonly handle: (request: Request) => Promise<Response>
  /** Ends every session (the server stops). */
  readonly close: () => void
  /** Sessions open now. */
  readonly sessions: () => number
}

/** Once the request's response has ended or its client went away (the edge aborts the request's signal then). */
const whenDone = (request: Request, f: () => void) =>
  request.signal.aborted ? f() : request.signal.addEventListener("abort", f, { once: true })

/** A request of an open session, to its transport. */
const inSession = (session: Session, request: Request) => {
  session.active++
  session.lastSeen = Date.now()
  whenDone(request, () => {
    session.active--
    session.lastSeen = Date.now()
  })
  return session.transport.handleRequest(request)
}

/** A message without a session: answered by an MCP server made for it alone. */
const onceWith =
  (runtime: Runtime.Runtime<RunManager>, maxBodyBytes: number) =>
  async (userId: string | undefined, body: unknown, request: Request) => {
    const server = AeonMcp.make(runtime, userId)
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      maxRequestBodySize: maxBodyBytes
    })
    whenDone(request, () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    return transport.handleRequest(request, { parsedBody: body })
  }

export const make = (
  runtime: Runtime.Runtime<RunManager>,
  auth: AuthConfig,
  allowedHosts: ReadonlyArray<string>,
  maxBodyBytes: number
): McpEndpoint => {
  const sessions = makeSessions()
  /** An initialize: a new session, with an MCP server of its own. */
  const open = async (userId: string | undefined, body: unknown, request: Request) => {
    if (sessions.size() >= MAX_SESSIONS) {
      return refuse(503, "TOO_MANY_SESSIONS", `${MAX_SESSIONS} MCP sessions are open: end one (DELETE) first`)
    }
    const server = AeonMcp.make(runtime, userId)
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // the session's later messages are read by the SDK: within the server's limit, not its own 4 MiB
      maxRequestBodySize: maxBodyBytes,
      onsessioninitialized: (id) => sessions.add(id, { transport, server, userId, lastSeen: Date.now(), active: 0 }),
      onsessionclosed: (id) => sessions.end(id)
    })
    transport.onclose = () => transport.sessionId && sessions.end(transport.sessionId)
    await server.connect(transport)
    return transport.handleRequest(request, { parsedBody: body })
  }
  const once = onceWith(runtime, maxBodyBytes)
  const handle = async (request: Request): Promise<Response> => {
    const headers = {
      host: request.headers.get("host") ?? undefined,
      origin: request.headers.get("origin") ?? undefined
    }
    if (!hostAllowed({ headers }, auth, allowedHosts)) {
      return refuse(403, "HOST_NOT_ALLOWED", HOST_REFUSED)
    }
    const caller = authenticate(auth, request.headers.get("authorization") ?? undefined)
    if (!caller) return refuse(401, "UNAUTHENTICATED", "missing or invalid API key", { "www-authenticate": "Bearer" })
    sessions.sweep(Date.now())
    const sessionId = request.headers.get("mcp-session-id")
    try {
      if (sessionId !== null) {
        const session = sessions.get(sessionId)
        if (!session || session.userId !== caller.userId) {
          return refuse(404, "SESSION_NOT_FOUND", "no such MCP session (it ended): initialize a new one")
        }
        return await inSession(session, request)
      }
      if (request.method !== "POST") {
        return refuse(405, "METHOD_NOT_ALLOWED", "POST a JSON-RPC message (GET and DELETE need an Mcp-Session-Id)", {
          allow: "POST"
        })
      }
      const body = await request.json().then((value: unknown) => ({ value }), () => undefined)
      if (body === undefined) return refuse(400, "PARSE_ERROR", "the body is not JSON", {}, -32700)
      return await (isInitializeRequest(body.value) ? open : once)(caller.userId, body.value, request)
    } catch {
      return refuse(500, "INTERNAL", "internal error")
    }
  }
  return { handle, close: sessions.endAll, sessions: sessions.size }
}
