import { Redacted } from "effect"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { backend, freshDatabase } from "../support/database.js"
import { exited, scriptedServerEnv, slowArithmeticScript, startProcess as start } from "../support/process.js"
import { seedScriptFile, verdict } from "../support/scripts.js"
import { awaitRun, gql, untilEvent, untilStatus } from "../support/server.js"

const dir = mkdtempSync(join(tmpdir(), "aeon-process-"))
const script = slowArithmeticScript(dir, 400)

describe(`the server process (${backend})`, () => {
  it("SIGTERM stops it within a bounded time; the unfinished run resumes on the next start", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const env: Record<string, string> = {
      AEON_PORT: "0",
      AEON_DATA_DIR: join(dir, "data"),
      AEON_MODEL_PROVIDER: "scripted",
      AEON_SCRIPT: script
    }
    if (db.url) env.AEON_DATABASE_URL = Redacted.value(db.url)

    const first = start(env)
    const url1 = await first.url
    const id = (await gql(
      url1,
      `mutation { runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL }) { id } }`
    )).body.data.runTask.id as string
    await untilEvent(url1, id, "StepStarted")
    const stopping = Date.now()
    first.child.kill("SIGTERM")
    expect(await exited(first.child)).toBe(0)
    expect(Date.now() - stopping).toBeLessThan(15_000)
    expect(first.output()).toContain("SIGTERM: stopping")

    const second = start(env)
    const url2 = await second.url
    await second.said.until("resumed 1 unfinished run(s)")
    const status = await untilStatus(url2, id, "CONVERGED", {
      query: `query($id: ID!) { run(id: $id) { status finalAnswer { answerText } } }`
    })
    expect(status.finalAnswer.answerText).toContain("126")
    second.child.kill("SIGINT")
    expect(await exited(second.child)).toBe(0)
  }, 180_000)

  it(
    "kill -9 after a memory.write step, restart: the run ends as it would have, memory intact, every run listed",
    async () => {
      const db = freshDatabase()
      await Effect.runPromise(db.setup)
      const memoryScript = join(dir, "memory.json")
      const verdict = {
        converged: true,
        completenessScore: 1,
        coherenceScore: 1,
        consistencyAlignment: {},
        reasoning: "r",
        confidence: 1,
        reasonCodes: ["complete"]
      }
      writeFileSync(
        memoryScript,
        JSON.stringify({
          fallback: "offline",
          plan_generation_user: [{
            output: {
              goal: "Seed the memory and read it back",
              steps: [
                {
                  stepId: "s1",
                  description: "Store the seed 7 in memory under the key seed",
                  tool: "memory.write",
                  toolInput: { key: "seed", value: 7 }
                },
                {
                  stepId: "s2",
                  description: "Read the seed back from memory",
                  tool: "memory.read",
                  toolInput: { key: "seed" },
                  dependencies: ["s1"]
                }
              ]
            }
          }],
          reasoning_step_user: [{
            delayMs: 600,
            output: { stepOutput: "the seed is 7", clarityState: "CLEAR", handoffToNext: "7" }
          }],
          convergence_assessment_user: [{ output: verdict }],
          answer_synthesis_user: [{ output: { answerText: "The seed is 7.", confidence: 0.9, usedStepIds: ["s2"] } }]
        })
      )
      const env: Record<string, string> = {
        AEON_PORT: "0",
        AEON_DATA_DIR: join(dir, "data-kill"),
        AEON_MODEL_PROVIDER: "scripted",
        AEON_SCRIPT: memoryScript
      }
      if (db.url) env.AEON_DATABASE_URL = Redacted.value(db.url)
      const eventsOf = async (url: string, id: string) =>
        (await gql(
          url,
          `query($id: ID!) { run(id: $id) { events { type ... on ToolInvokedEvent { tool output } } } }`,
          { id }
        ))
          .body.data.run.events as Array<{ type: string; tool?: string; output?: any }>

      const first = start(env)
      const url1 = await first.url
      const start1 = (task: string) =>
        gql(url1, `mutation($task: String!) { runTask(input: { task: $task, mode: FULL }) { id } }`, { task })
          .then((r) => r.body.data.runTask.id as string)
      const done = await start1("Seed the memory and read it back (the run that finishes first)")
      await untilEvent(url1, done, "RunFinished")
      const id = await start1("Seed the memory and read it back")
      // the memory.write step finished (its event stored and published); its reasoning and s2 are yet to come
      await untilEvent(url1, id, (e) => e.type === "ToolInvoked" && e.payload.tool === "memory.write")
      first.child.kill("SIGKILL")
      await exited(first.child)

      const second = start(env)
      const url2 = await second.url
      const status = await awaitRun(url2, id, {
        query: `query($id: ID!) { run(id: $id) { status finalAnswer { answerText } } }`
      }).catch(async (e) => {
        // what the restarted server said and what the run holds, for whoever reads a failure here
        const seen = (await eventsOf(url2, id).catch(() => [])).map((x) => x.type).join(" ")
        throw new Error(`${e}\nserver output:\n${second.output()}\nevents: ${seen}\nfirst server:\n${first.output()}`)
      })
      expect(status).toEqual({ status: "CONVERGED", finalAnswer: { answerText: "The seed is 7." } })
      const events = await eventsOf(url2, id)
      expect(events.filter((e) => e.tool === "memory.write")).toHaveLength(1)
      expect(events.find((e) => e.tool === "memory.read")?.output).toEqual({ key: "seed", found: true, value: 7 })
      const list = await gql(url2, `{ runs { edges { node { id status } } } }`)
      expect(list.body.errors).toBeUndefined()
      expect(list.body.data.runs.edges.map((e: any) => e.node.id).sort()).toEqual([done, id].sort())
      second.child.kill("SIGINT")
      expect(await exited(second.child)).toBe(0)
    },
    180_000
  )

  it(
    "AEON_APPROVAL_TOOLS: a run waiting for approval survives kill -9 and finishes once approved, the tool called once",
    async () => {
      const approvalScript = seedScriptFile(join(dir, "approval.json"), {
        convergence_assessment_user: [verdict(true)]
      })
      const env = await scriptedServerEnv(join(dir, "data-approval"), approvalScript, {
        AEON_APPROVAL_TOOLS: "memory.write"
      })
      const query = `query($id: ID!) {
      run(id: $id) { status pendingApprovals { requestId tool } events { type ... on ToolInvokedEvent { tool } } }
    }`
      const awaiting = (url: string, id: string) => untilStatus(url, id, "AWAITING_INPUT", { query })

      const first = start(env)
      const url1 = await first.url
      const id = (await gql(url1, `mutation { runTask(input: { task: "Seed the memory", mode: FULL }) { id } }`)).body
        .data.runTask.id as string
      const before = await awaiting(url1, id)
      expect(before.pendingApprovals).toEqual([{ requestId: expect.any(String), tool: "memory.write" }])
      first.child.kill("SIGKILL")
      await exited(first.child)

      const second = start(env)
      const url2 = await second.url
      const after = await awaiting(url2, id)
      expect(after.pendingApprovals).toEqual(before.pendingApprovals) // the same request, not a new one
      const answered = await gql(
        url2,
        `mutation($id: ID!, $r: ID!) { respondToApproval(runId: $id, requestId: $r, decision: APPROVE) { id } }`,
        { id, r: before.pendingApprovals[0].requestId }
      )
      expect(answered.body.errors).toBeUndefined()
      const done = await awaitRun(url2, id, { query })
      expect(done.status).toBe("CONVERGED")
      expect(done.events.filter((e: any) => e.tool === "memory.write")).toHaveLength(1)
      expect(done.events.filter((e: any) => e.type === "ApprovalRequested")).toHaveLength(1)
      expect(done.events.some((e: any) => e.type === "RunResumed")).toBe(true)
      second.child.kill("SIGINT")
      expect(await exited(second.child)).toBe(0)
    },
    180_000
  )

  it.skipIf(backend !== "sqlite")(
    "a second server on the same embedded data directory exits 1 with one line",
    async () => {
      const env: Record<string, string> = {
        AEON_PORT: "0",
        AEON_DATA_DIR: join(dir, "data-twice"),
        AEON_MODEL_PROVIDER: "offline"
      }
      const first = start(env)
      await first.url
      const second = start(env)
      expect(await exited(second.child)).toBe(1)
      const lines = second.output().trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(
        // the server holding it is named by its address and pid (#60 item 1)
        /^aeon: the server could not start: the embedded database at .* is held by the Aeon server at http:\/\/\S+ \(process \d+\)/
      )
      first.child.kill("SIGTERM")
      expect(await exited(first.child)).toBe(0)
    },
    60_000
  )
})
