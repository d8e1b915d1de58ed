import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import type { Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as AeonMcp from "./AeonMcp.js"
import type { RunManager } from "./RunManager.js"
import { type AuthConfig, authenticate, hostAllowed } from "./Security.js"

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
