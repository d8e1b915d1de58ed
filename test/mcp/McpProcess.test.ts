import { Effect, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { backend, freshDatabase } from "../support/database.js"
import { filesystemServer } from "../support/mcp.js"
import { exited, startProcess as start } from "../support/process.js"
import { verdict } from "../support/scripts.js"
import { awaitRun, gql, untilStatus, waitFor } from "../support/server.js"

const dir = realpathSync(mkdtempSync(join(tmpdir(), "aeon-mcp-process-")))
const files = join(dir, "files")
execFileSync("mkdir", ["-p", files])
const target = join(files, "report.txt")

/** The MCP configuration a person writes: the reference filesystem server on one folder. */
const config = join(dir, "mcp.json")
writeFileSync(config, JSON.stringify({ mcpServers: { fs: filesystemServer(files) } }))

/** A plan that writes the report through the filesystem server, then explains it. */
const script = join(dir, "write.json")
writeFileSync(
  script,
  JSON.stringify({
    fallback: "offline",
    plan_generation_user: [{
      output: {
        goal: "Write the report",
        steps: [
          {
            stepId: "s1",
            description: "Write the report file",
            tool: "fs.write_file",
            toolInput: { path: target, content: "quarterly total: 126" }
          },
          { stepId: "s2", description: "Say the report was written", dependencies: ["s1"] }
        ]
      }
    }],
    convergence_assessment_user: [verdict(true)]
  })
)

/** The processes running the filesystem server on this test's folder (the MCP children of Aeon). */
const mcpChildren = () =>
  execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" }).split("\n").filter((l) =>
    l.includes("server-filesystem") && l.includes(files)
  )

const query = `query($id: ID!) {
  run(id: $id) { status pendingApprovals { requestId tool input } events { type ... on ToolInvokedEvent { tool output error } } }
}`

describe(`an MCP tool with side effects under approval, across kill -9 (${backend})`, () => {
  it(
    "REJECT leaves the file untouched; APPROVE after a kill -9 and restart writes it once; no MCP child outlives Aeon",
    async () => {
      const db = freshDatabase()
      await Effect.runPromise(db.setup)
      const env: Record<string, string> = {
        AEON_PORT: "0",
        AEON_DATA_DIR: join(dir, "data"),
        AEON_MODEL_PROVIDER: "scripted",
        AEON_SCRIPT: script,
        AEON_MCP_CONFIG: config,
        // every destructive tool waits for a person: fs.write_file is marked destructiveHint by its server
        AEON_APPROVAL_TOOLS: "*"
      }
      if (db.url) env.AEON_DATABASE_URL = Redacted.value(db.url)
      const awaiting = (url: string, id: string) => untilStatus(url, id, "AWAITING_INPUT", { query })
      const finished = (url: string, id: string) => awaitRun(url, id, { query })
      const startRun = async (url: string) =>
        (await gql(url, `mutation { runTask(input: { task: "Write the report", mode: FULL }) { id } }`)).body.data
          .runTask.id as string
      const answer = (url: string, id: string, requestId: string, decision: string) =>
        gql(
          url,
          `mutation($id: ID!, $r: ID!, $d: ApprovalDecision!) {
          respondToApproval(runId: $id, requestId: $r, decision: $d, reason: "not now") { id }
        }`,
          { id, r: requestId, d: decision }
        )

      const first = start(env)
      const url1 = await first.url
      // the start-up lines name each MCP server and its state
      await first.said.until(/MCP server fs: \w+/)
      expect(first.output()).toMatch(/MCP server fs: connected, \d+ tool/)
      // REJECT: the call is never made
      const rejected = await startRun(url1)
      const asked = await awaiting(url1, rejected)
      expect(asked.pendingApprovals).toEqual([
        {
          requestId: expect.any(String),
          tool: "fs.write_file",
          input: { path: target, content: "quarterly total: 126" }
        }
      ])
      expect((await answer(url1, rejected, asked.pendingApprovals[0].requestId, "REJECT")).body.errors).toBeUndefined()
      await finished(url1, rejected)
      expect(existsSync(target)).toBe(false)

      // a run waiting for approval when the server is killed
      const id = await startRun(url1)
      const before = await awaiting(url1, id)
      expect(mcpChildren().length).toBe(1)
      first.child.kill("SIGKILL")
      await exited(first.child)
      // its MCP child sees its stdin close and ends: no orphan (a process not ours to wait on: the list read again)
      await waitFor(async () => (mcpChildren().length === 0 ? true : undefined), 10_000)
      expect(existsSync(target)).toBe(false)

      const second = start(env)
      const url2 = await second.url
      const after = await awaiting(url2, id)
      expect(after.pendingApprovals).toEqual(before.pendingApprovals) // the same request
      expect((await answer(url2, id, before.pendingApprovals[0].requestId, "APPROVE")).body.errors).toBeUndefined()
      const done = await finished(url2, id)
      expect(done.status).toBe("CONVERGED")
      expect(readFileSync(target, "utf8")).toBe("quarterly total: 126")
      expect(done.events.filter((e: any) => e.tool === "fs.write_file")).toHaveLength(1)
      expect(done.events.find((e: any) => e.tool === "fs.write_file").error).toBeNull()
      // SIGINT: Aeon stops, and its MCP server with it
      second.child.kill("SIGINT")
      expect(await exited(second.child)).toBe(0)
      expect(mcpChildren()).toEqual([])
    },
    180_000
  )
})
