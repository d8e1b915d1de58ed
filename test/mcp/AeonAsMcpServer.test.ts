import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Option, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/server.js"

const TASK = "Compute (17 + 25) * 3"

const answerText = (result: any) => (result.content as Array<{ type: string; text: string }>)[0]!.text

describe("Aeon as an MCP server, called by the SDK's own Client", () => {
  let server: TestServer & { db: any }
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server?.stop())

  const mcpUrl = (s: TestServer) => new URL(s.url.replace(/\/graphql$/, "/mcp"))

  it("over HTTP (/mcp): tools listed; run_task answers what the CLI answers, with progress; get_run reads it back", async () => {
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(server)))
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(["cancel_run", "get_run", "run_task"])
    const progress: Array<string> = []
    const result = await client.callTool({ name: "run_task", arguments: { task: TASK, mode: "FULL" } }, undefined, {
      onprogress: (p) => void progress.push(p.message ?? "")
    })
    expect(result.isError).toBeFalsy()
    expect(answerText(result)).toContain("126")
    const view = result.structuredContent as { runId: string; status: string }
    expect(view.status).toBe("CONVERGED")
    expect(progress.length).toBeGreaterThan(1)
    expect(progress.at(-1)).toBe("finished: CONVERGED")
    const read = await client.callTool({ name: "get_run", arguments: { runId: view.runId } })
    expect(read.structuredContent).toMatchObject({ runId: view.runId, status: "CONVERGED" })
    const resource = await client.readResource({ uri: `aeon://runs/${view.runId}` })
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ status: "CONVERGED" })
    const missing = await client.callTool({ name: "get_run", arguments: { runId: "no-such-run" } })
    expect(missing.isError).toBe(true)
    expect(answerText(missing)).toMatch(/^RunNotFoundError/)
    await client.close()
  })

  it("refuses a Host or Origin that is not this machine (DNS rebinding) on a server without keys", async () => {
    const res = await fetch(mcpUrl(server), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        origin: "http://evil.example.com"
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
    })
    expect(res.status).toBe(403)
    expect(await res.json()).toMatchObject({ error: { data: { code: "HOST_NOT_ALLOWED" } } })
  })

  it("over stdio (aeon mcp): run_task gets the answer", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["bin/aeon.mjs", "mcp"],
      env: { ...process.env, AEON_DATA_DIR: mkdtempSync(join(tmpdir(), "aeon-mcp-stdio-")) } as Record<string, string>,
      stderr: "pipe"
    })
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(transport)
    const result = await client.callTool({ name: "run_task", arguments: { task: TASK, mode: "FULL" } })
    expect(answerText(result)).toContain("126")
    expect(result.structuredContent).toMatchObject({ status: "CONVERGED" })
    await client.close()
  })
})

describe("/mcp behind API keys", () => {
  let server: TestServer & { db: any }
  beforeAll(async () => {
    server = await startServer({ config: { apiKeys: Option.some(Redacted.make("s3cret:alice")) } })
  })
  afterAll(() => server?.stop())

  it("answers with the key, refuses without it or with a wrong one", async () => {
    const url = new URL(server.url.replace(/\/graphql$/, "/mcp"))
    const withKey = (key: string) =>
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } })
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(withKey("s3cret"))
    const result = await client.callTool({ name: "run_task", arguments: { task: TASK, mode: "FULL" } })
    expect(answerText(result)).toContain("126")
    await client.close()
    for (const transport of [withKey("wrong"), new StreamableHTTPClientTransport(url)]) {
      await expect(new Client({ name: "test", version: "1.0.0" }).connect(transport)).rejects.toThrow(/UNAUTHENTICATED/)
    }
  })
})
