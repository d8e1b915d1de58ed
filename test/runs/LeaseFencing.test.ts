import { Effect, Redacted } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { backend, freshDatabase } from "../support/database.js"
import { threeLedgerCalls } from "../support/ledger.js"
import { exited, startProcess } from "../support/process.js"
import { awaitRun, gql, untilEvent } from "../support/server.js"

/**
 * One lease that fences (#75.1), on plain servers sharing PostgreSQL: a run's holder frozen (SIGSTOP) while a call with
 * side effects is in flight, the run taken up by another server, then the holder woken. The run ends once, no step is
 * recorded twice, and the side effect happens at most once more (the call in flight): the woken holder finds its hold
 * gone and stops the run there, and its late appends are refused (its epoch is stale). Two ways another server takes
 * it up: at its sweep once the frozen hold lapses, and at its start, asking the holder, who does not answer in time.
 */
const { config, dir, ledger, lines, script, untilRecords } = threeLedgerCalls("aeon-fencing-", 2500)

const started: Array<ReturnType<typeof startProcess>> = []
afterEach(async () => {
  for (const p of started.splice(0)) {
    p.child.kill("SIGCONT")
    p.child.kill("SIGKILL")
    await exited(p.child).catch(() => undefined)
  }
  writeFileSync(ledger, "")
})

const serverOn = async (db: ReturnType<typeof freshDatabase>, leaseMs: number, name: string) => {
  const p = startProcess({
    AEON_PORT: "0",
    AEON_DATA_DIR: join(dir, name),
    AEON_DATABASE_URL: Redacted.value(db.url!),
    AEON_MODEL_PROVIDER: "scripted",
    AEON_SCRIPT: script,
    AEON_MCP_CONFIG: config,
    AEON_LEASE_MS: String(leaseMs)
  })
  started.push(p)
  return { ...p, url: await p.url }
}

const RUN_QUERY = `query($id: ID!) { run(id: $id) { status events(fromSeq: 0) { seq type } } }`

/** A run of the three calls started on `url`, once its first call is in flight (its record written, its answer held). */
const midCall = async (url: string) => {
  const id = (await gql(
    url,
    `mutation { runTask(input: { task: "Append the records a, b and c to the ledger", mode: FULL }) { id } }`
  ))
    .body.data.runTask.id as string
  await untilRecords(1)
  return id
}

/** Taken up at `url`: its log there holds a RunResumed. */
const resumedAt = (url: string, id: string) => untilEvent(url, id, "RunResumed", { timeoutMs: 60_000 })

/** Ended once, each step once, the side effects at most one more than the three (the call in flight). */
const endedOnce = async (url: string, id: string) => {
  const run = await awaitRun(url, id, { query: RUN_QUERY })
  expect(run.status).toBe("CONVERGED")
  const types: Array<string> = run.events.map((e: { type: string }) => e.type)
  const seqs = run.events.map((e: { seq: number }) => e.seq)
  expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1))
  expect(types.filter((t) => t === "RunFinished")).toHaveLength(1)
  expect(types.filter((t) => t === "RunResumed")).toHaveLength(1)
  expect(types.filter((t) => t === "ToolInvoked")).toHaveLength(3)
  const after = lines()
  for (const r of ["a", "b", "c"]) {
    expect(after.filter((l) => l === r).length, after.join(",")).toBeGreaterThanOrEqual(1)
  }
  expect(after.length, after.join(",")).toBeLessThanOrEqual(4)
}

describe.skipIf(backend !== "postgres")("a run's holder frozen past its lease (PostgreSQL, plain servers)", () => {
  // a lease of 5 s: long enough that a server of a loaded machine renews in time, short enough for a test
  it("its hold lapses: another server takes the run up at its sweep; woken, the holder stops it there", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const holder = await serverOn(db, 5_000, "a")
    const other = await serverOn(db, 5_000, "b")
    const id = await midCall(holder.url)
    holder.child.kill("SIGSTOP")
    try {
      await resumedAt(other.url, id)
    } finally {
      holder.child.kill("SIGCONT")
    }
    await endedOnce(other.url, id)
    // the woken holder found the run gone and is alive and serving
    await holder.said.until(`run ${id} was taken up by another process`)
    expect((await gql(holder.url, `{ health { version } }`)).status).toBe(200)
  }, 120_000)

  it("a live holder slower to answer than another server's start: taken up there, the holder stops it", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    // a long lease: only the start-up claim (over a holder that did not answer) takes the run
    const holder = await serverOn(db, 60_000, "c")
    const id = await midCall(holder.url)
    holder.child.kill("SIGSTOP")
    let late: Awaited<ReturnType<typeof serverOn>>
    try {
      late = await serverOn(db, 60_000, "d")
      await resumedAt(late.url, id)
    } finally {
      holder.child.kill("SIGCONT")
    }
    await endedOnce(late.url, id)
    await holder.said.until(`run ${id}`)
    expect(holder.output()).toMatch(new RegExp(`run ${id} (was taken up by another process|stopped here, unfinished)`))
  }, 120_000)
})
