import { Effect, Redacted } from "effect"
import { execFile } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backend, freshDatabase } from "../support/database.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

// `aeon approve` in a process of its own while a server on the same PostgreSQL holds the run (#43): the answer goes to
// the server through the answer inbox and the server records it on the run's log — one writer —, the run goes on
// there. (On SQLite one process holds the data directory: the CLI cannot open it while a server runs.)
const db = freshDatabase()
let server: TestServer
beforeAll(async () => {
  if (backend !== "postgres") return
  await Effect.runPromise(db.setup)
  server = await startServer({ db })
})
afterAll(() => server?.stop())

const aeon = (...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["bin/aeon.mjs", ...args],
      {
        env: { PATH: process.env.PATH ?? "", AEON_DATABASE_URL: Redacted.value(db.url!), CI: "true" },
        encoding: "utf8",
        timeout: 60_000
      },
      (e, stdout, stderr) => resolve({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stdout, stderr })
    )
  )

/** A run of the server's that waits for its plan's approval: its id and the request's. */
const waitingRun = async () => {
  const started = await gql(
    server.url,
    `mutation { runTask(input: { task: "Compute 17 + 25", mode: FULL, approvePlan: true }) { id } }`
  )
  const id = started.body.data.runTask.id as string
  const waiting = await awaitRun(server.url, id, {
    until: "PlanApprovalRequested",
    query: `query($id: ID!) { run(id: $id) { pendingPlanApproval { requestId } } }`
  })
  return { id, requestId: waiting.pendingPlanApproval.requestId as string }
}

describe.skipIf(backend !== "postgres")("aeon approve while a server runs the run (PostgreSQL)", () => {
  it("the answer reaches the run through the server, which goes on to the answer; the log has one writer", async () => {
    const { id, requestId } = await waitingRun()
    const approved = await aeon("approve", id, requestId)
    expect(approved.stderr).toBe("")
    expect(approved.code).toBe(0)
    expect(approved.stdout).toMatch(/the run goes on where it runs/)
    const run = await awaitRun(server.url, id, {
      query: `query($id: ID!) { run(id: $id) { status finalAnswer { answerText } events(fromSeq: 0) { seq type } } }`
    })
    expect(run.status).toBe("CONVERGED")
    expect(run.finalAnswer.answerText).toContain("42")
    const seqs = run.events.map((e: { seq: number }) => e.seq)
    expect(seqs).toEqual(seqs.map((_: number, i: number) => seqs[0] + i))
    expect(run.events.filter((e: { type: string }) => e.type === "ApprovalAnswered").length).toBe(1)
    expect(run.events.filter((e: { type: string }) => e.type === "RunFinished").length).toBe(1)
  })

  it("an answer the run refuses is the server's coded refusal; the request stays open and a good answer goes on", async () => {
    const { id, requestId } = await waitingRun()
    const refused = await aeon("approve", id, requestId, "--input", JSON.stringify("not a list of edits"))
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/ApprovalInputError: EDIT of a plan needs its edits/)
    const still = await gql(server.url, `query($id: ID!) { run(id: $id) { status } }`, { id })
    expect(still.body.data.run.status).toBe("AWAITING_INPUT")
    expect((await aeon("approve", id, requestId)).code).toBe(0)
    expect((await awaitRun(server.url, id)).status).toBe("CONVERGED")
  })
})
