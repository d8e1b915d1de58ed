import { Effect, Redacted } from "effect"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { backend, freshDatabase } from "../support/database.js"
import { threeLedgerCalls } from "../support/ledger.js"
import { exited, startProcess as start } from "../support/process.js"
import { awaitRun, gql, untilEvents } from "../support/server.js"

/**
 * A crash repeats at most one side effect, also when steps run at once (#54 item 10): three independent steps each
 * call an MCP tool with a side effect (it writes its record to a ledger at once, then holds its answer 2.5 s); the
 * server is killed with SIGKILL while a call holds; a new server resumes the run. The run's calls with side effects
 * are made one at a time, so the kill finds one in flight: the ledger holds each record once but that one, twice at
 * most. (The code before ran the three at once: the kill found three, and the resume wrote each again.)
 */
const { config, dir, lines, script, untilRecords } = threeLedgerCalls("aeon-side-effects-", 2500)

describe(`a kill -9 with steps at once, each calling a tool with side effects (${backend})`, () => {
  it("the resumed run repeats at most the one call in flight", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const env: Record<string, string> = {
      AEON_PORT: "0",
      AEON_DATA_DIR: join(dir, "data"),
      AEON_MODEL_PROVIDER: "scripted",
      AEON_SCRIPT: script,
      AEON_MCP_CONFIG: config
    }
    if (db.url) env.AEON_DATABASE_URL = Redacted.value(db.url)
    const first = start(env)
    const url1 = await first.url
    const started = await gql(
      url1,
      `mutation { runTask(input: { task: "Append the records a, b and c to the ledger", mode: FULL, parallelism: 4 }) { id } }`
    )
    const id = started.body.data.runTask.id as string
    expect(id).toBeTruthy()
    // a call has written its record and holds its answer, and the three steps have started (at once: calls made at
    // once would all be under way now)
    await untilRecords(1)
    await untilEvents(
      url1,
      id,
      (events) => (events.filter((e) => e.type === "StepStarted").length === 3 ? true : undefined)
    )
    const beforeKill = lines()
    first.child.kill("SIGKILL")
    await exited(first.child)

    const second = start(env)
    const url2 = await second.url
    const run = await awaitRun(url2, id)
    second.child.kill("SIGINT")
    await exited(second.child)
    expect(run.status).toBe("CONVERGED")
    const after = lines()
    const counts = Object.fromEntries(["a", "b", "c"].map((r) => [r, after.filter((l) => l === r).length]))
    expect(beforeKill, "one call in flight at the kill").toHaveLength(1)
    expect(Object.values(counts).every((n) => n >= 1), JSON.stringify(counts)).toBe(true)
    expect(Object.values(counts).filter((n) => n > 1), JSON.stringify(counts)).toHaveLength(
      after.length === 3 ? 0 : 1
    )
    expect(after.length, JSON.stringify(after)).toBeLessThanOrEqual(4)
  }, 120_000)
})
