/** The parts of MCP's official SDK the client side uses: one module, loaded when a configuration names a server. */
export { Client } from "@modelcontextprotocol/sdk/client/index.js"
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
export { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
export { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
