import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import { backend, freshDatabase } from "../support/database.js"
import { convergingScript, reasoned } from "../support/scripts.js"
import { awaitRun, gql, startServer, untilEvents } from "../support/server.js"

/**
 * A run followed from another plain server sharing its PostgreSQL (no cluster): the follower gets every event, live,
 * to the run's end — not what was stored when it subscribed and an end.
 */
describe.skipIf(backend !== "postgres")("a run followed from another server sharing the store (PostgreSQL)", () => {
  it("is followed live to its RunFinished, every event once, in order", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const slow = {
      ...convergingScript(),
      [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 400 }]
    }
    const running = await startServer({ db, script: slow })
    const other = await startServer({ db, script: slow })
    try {
      const id = (await gql(
        running.url,
        `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`
      )).body.data.runTask.id as string
      // followed from the other server while the run executes on the first
      const seen = await untilEvents(
        other.url,
        id,
        (events) => (events.at(-1)?.type === "RunFinished" ? events : undefined)
      )
      const stored = await awaitRun(running.url, id, {
        query: `query($id: ID!) { run(id: $id) { status runner events { seq } } }`
      })
      expect(stored.status).toBe("CONVERGED")
      expect(seen.map((e) => e.seq)).toEqual(stored.events.map((e: { seq: number }) => e.seq))
      expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1))
    } finally {
      await running.stop()
      await other.stop()
    }
  }, 60_000)
})
