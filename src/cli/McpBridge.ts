import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Exit } from "effect"

/**
 * `aeon mcp` beside a server holding the data directory: stdio bridged to the server's `/mcp` (Streamable HTTP, its
 * session kept by the SDK's client transport), each message passed on as it comes, so an editor's stdio entry reaches
 * the runs, tools and store of the server (one process writes the directory). A request the server cannot be reached
 * for is answered with a JSON-RPC error saying so. Ends when stdin does.
 */
export const bridgeToServer = (graphqlUrl: string) =>
  Effect.gen(function*() {
    const [{ StdioServerTransport }, { StreamableHTTPClientTransport }] = yield* Effect.promise(() =>
      Promise.all([
        import("@modelcontextprotocol/sdk/server/stdio.js"),
        import("@modelcontextprotocol/sdk/client/streamableHttp.js")
      ])
    )
    const url = graphqlUrl.replace(/\/graphql$/, "/mcp")
    const key = process.env.AEON_API_KEY?.split(",")[0]?.trim()
    const server = new StreamableHTTPClientTransport(
      new URL(url),
      key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : undefined
    )
    const editor = new StdioServerTransport()
    const closed = yield* Deferred.make<void>()
    const unreachable = (message: JSONRPCMessage) =>
      "id" in message && "method" in message
        ? editor.send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32603, message: `the Aeon server at ${url} (it holds this data directory) cannot be reached` }
        })
        : Promise.resolve()
    editor.onmessage = (message) => void server.send(message).catch(() => unreachable(message))
    server.onmessage = (message) => void editor.send(message)
    editor.onclose = () => Deferred.unsafeDone(closed, Exit.void)
    yield* Effect.promise(() => server.start())
    yield* Effect.promise(() => editor.start())
    process.stderr.write(`aeon mcp: bridged to the server at ${url} (it holds this data directory)\n`)
    yield* Deferred.await(closed)
    yield* Effect.promise(() => server.close().catch(() => undefined))
  })
