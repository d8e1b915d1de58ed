import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import Database from "better-sqlite3"
import { Option, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

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
    expect(tools.map((t) => t.name).sort()).toEqual(["cancel_run", "get_run", "respond", "run_task"])
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
    // the words, with the code apart (_meta): a host's model reads what happened, never a class name
    expect(answerText(missing)).toBe("run no-such-run does not exist")
    expect(missing._meta).toEqual({ "aeon/code": "RunNotFoundError" })
    await client.close()
  })

  it("run_task's input schema is the run input's (its constraints and words); what it refuses is refused coded", async () => {
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(server)))
    const runTask = (await client.listTools()).tools.find((t) => t.name === "run_task")
    const schema = runTask?.inputSchema as unknown as {
      required: Array<string>
      additionalProperties: boolean
      properties: Record<string, { type?: string; minLength?: number; maxLength?: number; enum?: Array<string> }>
    }
    expect(schema.required).toEqual(["task"])
    expect(schema.additionalProperties).toBe(false)
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        "agent",
        "approvalTools",
        "approvePlan",
        "attachments",
        "budget",
        "interactive",
        "mode",
        "outputSchema",
        "outputStrict",
        "task",
        "threadId"
      ]
    )
    expect(schema.properties.task).toMatchObject({ type: "string", minLength: 1, maxLength: 20_000 })
    expect(schema.properties.agent).toMatchObject({ type: "string" })
    expect(schema.properties.mode?.enum?.sort()).toEqual(["AUTO", "FULL", "SIMPLE"])
    const budget = schema.properties.budget as unknown as { properties: Record<string, object> }
    expect(budget.properties.maxLlmCalls).toMatchObject({ type: "integer", minimum: 1 })
    expect(budget.properties.maxCostUsd).toMatchObject({ type: "number", exclusiveMinimum: 0 })
    // the run input's decode refuses what the schema does not allow, in its own words
    const refused = await client.callTool({
      name: "run_task",
      arguments: { task: "Compute 1 + 1", budget: { maxLlmCalls: 0 } }
    })
    expect(refused.isError).toBe(true)
    expect(answerText(refused)).toMatch(/^.*maxLlmCalls must be a positive integer \(was 0\)/)
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
    server = await startServer({ config: { apiKeys: Option.some(Redacted.make("s3cret:alice,b0b:bob")) } })
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

  it("a session is its user's: another key with its id is not found", async () => {
    const url = new URL(server.url.replace(/\/graphql$/, "/mcp"))
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: "Bearer s3cret" } }
    })
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(transport)
    const asBob = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer b0b",
        "mcp-session-id": transport.sessionId!
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(asBob.status).toBe(404)
    expect(await asBob.json()).toMatchObject({ error: { data: { code: "SESSION_NOT_FOUND" } } })
    expect((await client.listTools()).tools).toHaveLength(4)
    await client.close()
  })
})

describe("what a run_task run asks a person, asked of the client's user (MCP elicitation)", () => {
  /**
   * `aeon mcp` over stdio (a connection that lasts: the server can ask the client) on a store of its own, for a client
   * whose user answers every form with `reply` (the forms are kept).
   */
  const connect = async (reply: (message: string) => ElicitResult) => {
    const dataDir = mkdtempSync(join(tmpdir(), "aeon-mcp-ask-"))
    const client = new Client({ name: "editor", version: "1.0.0" }, { capabilities: { elicitation: {} } })
    const asked: Array<{ message: string; fields: Array<string> }> = []
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params as { message: string; requestedSchema: { properties: object } }
      asked.push({ message: params.message, fields: Object.keys(params.requestedSchema.properties) })
      return reply(params.message)
    })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["bin/aeon.mjs", "mcp"],
        env: { ...process.env, AEON_DATA_DIR: dataDir } as Record<string, string>,
        stderr: "pipe"
      })
    )
    return { client, asked, dataDir }
  }
  /** The answers stored in the run's log (read once the server has exited). */
  const answersIn = (dataDir: string, runId: string) => {
    const db = new Database(join(dataDir, "aeon.db"), { readonly: true })
    try {
      return db.prepare("SELECT payload FROM run_events WHERE run_id = ? AND type = 'ApprovalAnswered' ORDER BY seq")
        .all(runId).map((r: any) => JSON.parse(r.payload)).map((e) => ({
          decision: e.decision,
          by: e.by,
          reason: e.reason
        }))
    } finally {
      db.close()
    }
  }

  it("approvePlan: the plan and its forecast shown in a form; approved there, the run converges", async () => {
    const { asked, client, dataDir } = await connect(() => ({ action: "accept", content: { decision: "APPROVE" } }))
    const result = await client.callTool({
      name: "run_task",
      arguments: { task: TASK, mode: "FULL", approvePlan: true }
    })
    expect(result.structuredContent).toMatchObject({ status: "CONVERGED", pendingPlanApproval: null })
    expect(answerText(result)).toContain("126")
    expect(asked).toHaveLength(1)
    expect(asked[0]!.message).toMatch(/waits for approval of its plan/)
    expect(asked[0]!.message).toMatch(/\[calculator\]/)
    expect(asked[0]!.message).toMatch(/Forecast: \d+ model calls, \$\d/)
    expect(asked[0]!.fields).toEqual(["decision", "reason"])
    await client.close()
    const runId = (result.structuredContent as { runId: string }).runId
    expect(answersIn(dataDir, runId)).toEqual([{ decision: "APPROVE", by: "mcp:editor", reason: undefined }])
  })

  it("a tool's call under approval, refused in the form: the run goes on without it, the reason recorded", async () => {
    const { asked, client, dataDir } = await connect(() => ({
      action: "accept",
      content: { decision: "REJECT", reason: "no calculator today" }
    }))
    const result = await client.callTool({
      name: "run_task",
      arguments: { task: TASK, mode: "FULL", approvalTools: ["calculator"] }
    })
    const view = result.structuredContent as { runId: string; status: string; pendingApprovals: Array<unknown> }
    expect(["CONVERGED", "NOT_CONVERGED", "FAILED"]).toContain(view.status)
    expect(view.pendingApprovals).toEqual([])
    expect(asked.length).toBeGreaterThanOrEqual(1)
    expect(asked[0]!.message).toMatch(/asks to call calculator with \{"expression":/)
    await client.close()
    expect(answersIn(dataDir, view.runId)[0]).toEqual({
      decision: "REJECT",
      by: "mcp:editor",
      reason: "no calculator today"
    })
  })

  it("the user dismisses the form: run_task returns the run waiting, with what it asks", async () => {
    const { asked, client } = await connect(() => ({ action: "cancel" }))
    const result = await client.callTool({
      name: "run_task",
      arguments: { task: TASK, mode: "FULL", approvePlan: true }
    })
    expect(asked).toHaveLength(1)
    expect(result.structuredContent).toMatchObject({ status: "AWAITING_INPUT" })
    expect(answerText(result)).toMatch(/AWAITING_INPUT\nAeon run .* waits for approval of its plan/)
    await client.close()
  })
})

describe("/mcp sessions: what a run_task run asks, asked over HTTP; a client without forms; messages without a session", () => {
  let server: TestServer & { db: any }
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server?.stop())
  const mcpUrl = () => new URL(server.url.replace(/\/graphql$/, "/mcp"))
  const post = (body: unknown, headers: Record<string, string> = {}, method = "POST") =>
    fetch(mcpUrl(), {
      method,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      ...(method === "POST" ? { body: JSON.stringify(body) } : {})
    })

  it("a client with forms over HTTP: the plan asked in its session and approved there; the run converges", async () => {
    const client = new Client({ name: "web-editor", version: "1.0.0" }, { capabilities: { elicitation: {} } })
    const asked: Array<string> = []
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push((request.params as { message: string }).message)
      return { action: "accept", content: { decision: "APPROVE" } }
    })
    const transport = new StreamableHTTPClientTransport(mcpUrl())
    await client.connect(transport)
    expect(transport.sessionId).toEqual(expect.any(String))
    const result = await client.callTool({
      name: "run_task",
      arguments: { task: TASK, mode: "FULL", approvePlan: true }
    })
    expect(result.structuredContent).toMatchObject({ status: "CONVERGED" })
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatch(/waits for approval of its plan/)
    // the client ends its session: its id is not found any more
    const id = transport.sessionId!
    await transport.terminateSession()
    const after = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": id })
    expect(after.status).toBe(404)
    expect(await after.json()).toMatchObject({ error: { data: { code: "SESSION_NOT_FOUND" } } })
    await client.close()
  })

  it("a client without forms: the run comes back waiting, saying what it asks; answered over GraphQL, it goes on", async () => {
    const client = new Client({ name: "editor", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(mcpUrl()))
    const result = await client.callTool({
      name: "run_task",
      arguments: { task: TASK, mode: "FULL", approvePlan: true }
    })
    const view = result.structuredContent as { runId: string; status: string; pendingPlanApproval: any }
    expect(view.status).toBe("AWAITING_INPUT")
    expect(view.pendingPlanApproval.requestId).toEqual(expect.any(String))
    expect(answerText(result)).toMatch(/AWAITING_INPUT\nAeon run .* waits for approval of its plan/)
    expect(answerText(result)).toMatch(/respondToApproval/)
    // the text a host gives its model holds the exact call: the run's id and the request's id written out (#69.12)
    expect(answerText(result)).toContain(
      `call the tool respond with {"runId": "${view.runId}", "requestId": "${view.pendingPlanApproval.requestId}", "action": …}`
    )
    await gql(
      server.url,
      `mutation($id: ID!, $r: ID!) { respondToApproval(runId: $id, requestId: $r, decision: APPROVE) { id } }`,
      { id: view.runId, r: view.pendingPlanApproval.requestId }
    )
    await awaitRun(server.url, view.runId)
    const read = await client.callTool({ name: "get_run", arguments: { runId: view.runId } })
    expect((read.structuredContent as { status: string }).status).toBe("CONVERGED")
    await client.close()
  })

  it("a client without forms answers with the respond tool: the plan approved, the run converges in that call", async () => {
    const client = new Client({ name: "formless", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(mcpUrl()))
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("respond")
    const result = await client.callTool({
      name: "run_task",
      arguments: { task: TASK, mode: "FULL", approvePlan: true }
    })
    const view = result.structuredContent as { runId: string; status: string; pendingPlanApproval: any }
    expect(view.status).toBe("AWAITING_INPUT")
    const bad = await client.callTool({
      name: "respond",
      arguments: { runId: view.runId, requestId: view.pendingPlanApproval.requestId, action: "extend" }
    })
    expect(bad.isError).toBe(true)
    expect(answerText(bad)).toContain("extend needs input")
    const unknown = await client.callTool({
      name: "respond",
      arguments: { runId: view.runId, requestId: "nope", action: "approve" }
    })
    expect(unknown.isError).toBe(true)
    expect(answerText(unknown)).not.toMatch(/[A-Z][a-z]+Error\b|undefined/)
    // a required field left out is named, with what to give (never a class name, never `undefined`) (#69.12)
    const missing = await client.callTool({ name: "respond", arguments: { runId: view.runId, action: "approve" } })
    expect(missing.isError).toBe(true)
    expect(answerText(missing)).toMatch(/^respond needs requestId: the id of what the run asks/)
    const wrongAction = await client.callTool({
      name: "respond",
      arguments: { runId: view.runId, requestId: view.pendingPlanApproval.requestId, action: "yes" }
    })
    expect(answerText(wrongAction)).toBe(
      `respond's action must be one of approve, reject, edit, extend, guide (was "yes")`
    )
    const answered = await client.callTool({
      name: "respond",
      arguments: { runId: view.runId, requestId: view.pendingPlanApproval.requestId, action: "approve" }
    })
    expect(answered.isError).toBeFalsy()
    expect((answered.structuredContent as { status: string }).status).toBe("CONVERGED")
    expect(answerText(answered)).toContain("126")
    await client.close()
  })

  it("a message without a session is answered on its own; an unknown session, a GET without one, a body not JSON: coded refusals", async () => {
    const listed = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    expect(listed.status).toBe(200)
    expect(listed.headers.get("mcp-session-id")).toBeNull()
    const text = await listed.text()
    expect(text).toMatch(/run_task/)
    const unknown = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": "no-such-session" })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ error: { data: { code: "SESSION_NOT_FOUND" } } })
    const get = await post(undefined, {}, "GET")
    expect(get.status).toBe(405)
    expect(await get.json()).toMatchObject({ error: { data: { code: "METHOD_NOT_ALLOWED" } } })
    const notJson = await fetch(mcpUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{ not json"
    })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toMatchObject({ error: { code: -32700, data: { code: "PARSE_ERROR" } } })
  })
})
