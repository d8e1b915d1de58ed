import { Context } from "effect"
import type { Tool } from "../tools/ToolRegistry.js"

export type ServerStatus = "connecting" | "connected" | "reconnecting" | "failed"

/** What `health` says of one MCP server. */
export interface ServerHealth {
  readonly name: string
  readonly transport: "stdio" | "streamable-http" | "sse"
  readonly status: ServerStatus
  readonly toolCount: number
  readonly lastError: string | undefined
}

export interface Service {
  /** Every connected server's tools, as they are now (the same array until one of them changes). */
  readonly tools: () => ReadonlyArray<Tool>
  readonly health: () => ReadonlyArray<ServerHealth>
}

/** The configured MCP servers, connected for the life of the Layer that holds them (McpServers.ts). */
export class McpServers extends Context.Tag("aeon/McpServers")<McpServers, Service>() {}

/** No server. */
export const none: Service = { tools: () => [], health: () => [] }
