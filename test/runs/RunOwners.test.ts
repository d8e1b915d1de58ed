import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Redacted } from "effect"
import { execFile } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backend, freshDatabase, storeLayer } from "../support/database.js"
import { awaitRun, gql, startServer, type TestServer, waitFor } from "../support/server.js"

// A run's owner reached from another process (#59): the process executing a run holds it, with where it is reached,
// and an answer or a cancellation given elsewhere — `aeon approve` in a process of its own, another server on the
// same PostgreSQL — is a message to it; it records it on the run's log, whose one writer it is, and the run goes on
// there. (On SQLite one process holds the data directory: nothing else reaches its runs.)
const db = freshDatabase()
let owner: TestServer
let other: TestServer
beforeAll(async () => {
  if (backend !== "postgres") return
  await Effect.runPromise(db.setup)
  owner = await startServer({ db })
  other = await startServer({ db })
})
afterAll(async () => {
  await other?.stop()
  await owner?.stop()
})

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

/** A run of the server's at `url` (the owner's) that waits for its plan's approval: its id and the request's. */
const waitingRun = async (url = owner.url) => {
  const started = await gql(
    url,
    `mutation { runTask(input: { task: "Compute 17 + 25", mode: FULL, approvePlan: true }) { id } }`
  )
  const id = started.body.data.runTask.id as string
  const waiting = await awaitRun(url, id, {
    until: "PlanApprovalRequested",
    query: `query($id: ID!) { run(id: $id) { pendingPlanApproval { requestId } } }`
  })
  return { id, requestId: waiting.pendingPlanApproval.requestId as string }
}

/** The run's end as its owner tells it, and that its log has one writer: seqs in a row, one answer, one end. */
const endedOnce = async (id: string) => {
  const run = await awaitRun(owner.url, id, {
    query: `query($id: ID!) { run(id: $id) { status finalAnswer { answerText } events(fromSeq: 0) { seq type } } }`
  })
  const seqs = run.events.map((e: { seq: number }) => e.seq)
  expect(seqs).toEqual(seqs.map((_: number, i: number) => seqs[0] + i))
  expect(run.events.filter((e: { type: string }) => e.type === "RunFinished").length).toBe(1)
  return run
}

const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(storeLayer(db)), Effect.scoped))

describe.skipIf(backend !== "postgres")("a run's owner reached from another process (PostgreSQL)", () => {
  it("aeon approve: the answer reaches the run where it runs, which goes on to the answer; the log has one writer", async () => {
    const { id, requestId } = await waitingRun()
    const approved = await aeon("approve", id, requestId)
    expect(approved.stderr).toBe("")
    expect(approved.code).toBe(0)
    expect(approved.stdout).toContain(`the run goes on where it runs (${new URL(owner.url).origin})`)
    const run = await endedOnce(id)
    expect(run.status).toBe("CONVERGED")
    expect(run.finalAnswer.answerText).toContain("42")
    expect(run.events.filter((e: { type: string }) => e.type === "ApprovalAnswered").length).toBe(1)
  })

  it("an answer the run refuses is the owner's coded refusal; the request stays open and a good answer goes on", async () => {
    const { id, requestId } = await waitingRun()
    const refused = await aeon("approve", id, requestId, "--input", JSON.stringify("not a list of edits"))
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/ApprovalInputError: EDIT of a plan needs its edits/)
    const still = await gql(owner.url, `query($id: ID!) { run(id: $id) { status } }`, { id })
    expect(still.body.data.run.status).toBe("AWAITING_INPUT")
    expect((await aeon("approve", id, requestId)).code).toBe(0)
    expect((await awaitRun(owner.url, id)).status).toBe("CONVERGED")
  })

  it("another server answers a run the owner executes: sent to the owner, the run goes on there", async () => {
    const { id, requestId } = await waitingRun()
    const answered = await gql(
      other.url,
      `mutation($id: ID!, $r: ID!) { respondToApproval(runId: $id, requestId: $r, decision: APPROVE) { id } }`,
      { id, r: requestId }
    )
    expect(answered.body.errors).toBeUndefined()
    const run = await endedOnce(id)
    expect(run.status).toBe("CONVERGED")
    // a second answer to the same request, through the other server: the owner's refusal, coded, as it said it
    const again = await gql(
      other.url,
      `mutation($id: ID!, $r: ID!) { respondToApproval(runId: $id, requestId: $r, decision: REJECT) { id } }`,
      { id, r: requestId }
    )
    expect(again.body.errors?.[0]?.extensions?.code).toMatch(/RunNotWaitingError|ApprovalNotFoundError/)
  })

  it("another server cancels a run the owner executes: the owner ends it CANCELLED, nobody else takes it up", async () => {
    const { id } = await waitingRun()
    const cancelled = await gql(other.url, `mutation($id: ID!) { cancelRun(id: $id) { id } }`, { id })
    expect(cancelled.body.errors).toBeUndefined()
    const run = await endedOnce(id)
    expect(run.status).toBe("CANCELLED")
  })

  it("the owner endpoint refuses a caller without the owner's key; the run is untouched", async () => {
    const { id, requestId } = await waitingRun()
    const res = await fetch(`${new URL(owner.url).origin}/aeon/owner`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer not-the-key" },
      body: JSON.stringify({
        _tag: "Request",
        id: "1",
        tag: "Answer",
        payload: { runId: id, answer: { _tag: "Approval", requestId, answer: { decision: "APPROVE" } } },
        headers: []
      })
    })
    expect(res.status).toBe(401)
    expect((await res.json()).code).toBe("OWNER_KEY_REFUSED")
    const still = await gql(owner.url, `query($id: ID!) { run(id: $id) { status } }`, { id })
    expect(still.body.data.run.status).toBe("AWAITING_INPUT")
    await gql(owner.url, `mutation($id: ID!) { cancelRun(id: $id) { id } }`, { id })
  })

  it("a holder that cannot be reached is said so, coded, nothing recorded; a run nobody holds is answered in the store", async () => {
    // a run no process executes: `aeon run` stops at its plan's approval (a CLI holds nothing: no sweep takes it)
    const first = await aeon("run", "Compute 17 + 25", "--full", "--approve-plan")
    expect(first.code).toBe(3)
    const [, id, requestId] = first.stdout.match(/aeon approve (\S+) (\S+)/) ?? []
    expect((await sql((s) => s<{ holder: string | null }>`SELECT holder FROM runs WHERE id = ${id!}`))[0]?.holder)
      .toBeNull()
    // its hold as a process that died a moment ago leaves it: not lapsed, nobody answers there
    await sql((s) =>
      s`UPDATE runs SET holder = 'http://127.0.0.1:9', holder_key = 'k', held_until = ${Date.now() + 60_000}
        WHERE id = ${id}`
    )
    const count = () =>
      sql((s) => s<{ n: number }>`SELECT count(*)::int AS n FROM run_events WHERE run_id = ${id}`).then((r) => r[0]?.n)
    const before = await count()
    const unreachable = await aeon("approve", id!, requestId!)
    expect(unreachable.code).not.toBe(0)
    expect(unreachable.stderr).toContain(`the process running run ${id} (at http://127.0.0.1:9) could not be reached`)
    expect(await count()).toBe(before)
    // nobody holds it (as the CLI left it): the answer is recorded on its stored log, and it goes on when resumed
    await sql((s) => s`UPDATE runs SET holder = NULL, holder_key = NULL, held_until = NULL WHERE id = ${id!}`)
    const stored = await aeon("approve", id!, requestId!)
    expect(stored.stderr).toBe("")
    expect(stored.stdout).toContain(`go on with: aeon run --resume ${id}`)
    expect(await count()).toBe(before! + 1)
  })

  it("a server that starts leaves the runs another server executes to it (its start-up recovery skips held runs)", async () => {
    const { id, requestId } = await waitingRun()
    const late = await startServer({ db })
    try {
      const holder = await sql((s) => s<{ holder: string }>`SELECT holder FROM runs WHERE id = ${id}`)
      expect(holder[0]?.holder).toBe(new URL(owner.url).origin)
      expect((await aeon("approve", id, requestId)).code).toBe(0)
      const run = await endedOnce(id)
      expect(run.status).toBe("CONVERGED")
      // executed by its owner alone, never taken up by the server that started
      expect(run.events.filter((e: { type: string }) => e.type === "RunResumed")).toEqual([])
    } finally {
      await late.stop()
    }
  })

  /**
   * The waiting run `id`, let go by its server, taken up by one of the two live servers at its sweep: `aeon approve`
   * reaches it there, and it goes on to its end once — one resumption, one end, seqs in a row.
   */
  const takenUpOnce = async (id: string, requestId: string) => {
    const live = [new URL(owner.url).origin, new URL(other.url).origin]
    const takenBy = await waitFor(async () => {
      const row = await sql((s) => s<{ holder: string | null }>`SELECT holder FROM runs WHERE id = ${id}`)
      return row[0]?.holder && live.includes(row[0].holder) ? row[0].holder : undefined
    }, 30_000)
    const approved = await aeon("approve", id, requestId)
    expect(approved.code).toBe(0)
    expect(approved.stdout).toContain(`the run goes on where it runs (${takenBy})`)
    const run = await awaitRun([owner.url, other.url].find((u) => new URL(u).origin === takenBy)!, id, {
      query: `query($id: ID!) { run(id: $id) { status events(fromSeq: 0) { seq type } } }`
    })
    expect(run.status).toBe("CONVERGED")
    const types = run.events.map((e: { type: string }) => e.type)
    expect(types.filter((t: string) => t === "RunResumed")).toHaveLength(1)
    expect(types.filter((t: string) => t === "RunFinished")).toHaveLength(1)
    const seqs = run.events.map((e: { seq: number }) => e.seq)
    expect(seqs).toEqual(seqs.map((_: number, i: number) => seqs[0] + i))
  }

  it("a run whose holder died (its hold lapsed) is taken up by one of the servers sharing the store and goes on", async () => {
    const third = await startServer({ db })
    const { id, requestId } = await waitingRun(third.url)
    // held by a process that died: it stopped renewing, the hold lapsed (its server, still up, no longer holds it: it
    // stops the run without a word more, and stopping hands nothing over)
    await sql((s) =>
      s`UPDATE runs SET holder = 'http://127.0.0.1:9', holder_key = 'k', held_until = ${Date.now() - 1}
        WHERE id = ${id}`
    )
    await third.stop()
    await takenUpOnce(id, requestId)
  })

  it("a server that stops cleanly hands its runs over: one of the servers sharing the store goes on with them", async () => {
    const third = await startServer({ db })
    const { id, requestId } = await waitingRun(third.url)
    await third.stop()
    await takenUpOnce(id, requestId)
  })
})
