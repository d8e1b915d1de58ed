/* global process, setTimeout */
// An MCP server (the official SDK, stdio) with one tool with a side effect: `append` writes its record to the ledger
// file LEDGER_FILE at once, then holds its answer for LEDGER_HOLD_MS — a call killed in that time has done its side
// effect without its result reaching the caller. Its annotations say it is neither read-only nor idempotent.
// LEDGER_MODE=crash: the server exits when the tool is called; LEDGER_MODE=hang: the call never answers. LEDGER_CALLS:
// a file each call adds a line to as it begins (how many times the tool was tried).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { appendFileSync } from "node:fs"
import { z } from "zod"

const file = process.env.LEDGER_FILE
const holdMs = Number(process.env.LEDGER_HOLD_MS ?? 0)
const mode = process.env.LEDGER_MODE
const server = new McpServer({ name: "ledger", version: "1.0.0" })
server.registerTool(
  "append",
  {
    description: "Appends a record to the ledger (a side effect that must happen once).",
    inputSchema: { record: z.string() },
    annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false }
  },
  async ({ record }) => {
    if (process.env.LEDGER_CALLS) appendFileSync(process.env.LEDGER_CALLS, `${record}\n`)
    if (mode === "crash") process.exit(1)
    if (mode === "hang") await new Promise(() => {})
    appendFileSync(file, `${record}\n`)
    await new Promise((r) => setTimeout(r, holdMs))
    return { content: [{ type: "text", text: `appended ${record}` }] }
  }
)
await server.connect(new StdioServerTransport())
