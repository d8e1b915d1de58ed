import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import type { Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as AeonMcp from "./AeonMcp.js"
import type { RunManager } from "./RunManager.js"
import { type AuthConfig, authenticate, authRequired } from "./Security.js"

/** The hosts a local server without keys answers: this machine's names, and those AEON_ALLOWED_HOSTS lists. */
const LOCAL = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

const hostname = (hostHeader: string) => {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase()
  } catch {
    return undefined
  }
}

/**
 * Whether a request may come from a web page that a name pointing at this machine loaded (DNS rebinding): a server
 * without API keys answers only a Host and Origin naming this machine (or an allowed host); with keys, a page cannot
 * send the key, so any host is answered.
 */
export const hostAllowed = (req: IncomingMessage, auth: AuthConfig, allowed: ReadonlyArray<string>) => {
  if (authRequired(auth)) return true
  const ok = (name: string | undefined) => name !== undefined && (LOCAL.has(name) || allowed.includes(name))
  if (!ok(hostname(req.headers.host ?? ""))) return false
  const origin = req.headers.origin
  if (origin === undefined || origin === "null") return origin === undefined
  try {
    return ok(new URL(origin).hostname.toLowerCase())
  } catch {
    return false
  }
}

const refuse = (
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {}
) =>
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message, data: { code } }, id: null })
  )

/**
 * `/mcp`: Aeon as an MCP server over Streamable HTTP, stateless (each POST carries one JSON-RPC message; no session),
 * behind the same API keys as /graphql (a key bound to a user sees that user's runs only).
 */
export const handler = (
  runtime: Runtime.Runtime<RunManager>,
  auth: AuthConfig,
  allowedHosts: ReadonlyArray<string>
) =>
async (req: IncomingMessage, res: ServerResponse) => {
  if (!hostAllowed(req, auth, allowedHosts)) {
    return refuse(
      res,
      403,
      "HOST_NOT_ALLOWED",
      "Host or Origin is not this machine (set AEON_ALLOWED_HOSTS to allow it)"
    )
  }
  const caller = authenticate(auth, req.headers.authorization)
  if (!caller) {
    return refuse(res, 401, "UNAUTHENTICATED", "missing or invalid API key", { "www-authenticate": "Bearer" })
  }
  if (req.method !== "POST") {
    return refuse(res, 405, "METHOD_NOT_ALLOWED", "POST a JSON-RPC message (this endpoint keeps no session)", {
      allow: "POST"
    })
  }
  const server = AeonMcp.make(runtime, caller.userId)
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
  res.on("close", () => {
    void transport.close()
    void server.close()
  })
  try {
    await server.connect(transport)
    await transport.handleRequest(req, res)
  } catch {
    if (!res.headersSent) refuse(res, 500, "INTERNAL", "internal error")
  }
}
