import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gql, startServer, type TestServer } from "../support/server.js"

/**
 * A run cancelled the moment it was placed (QUEUED, before it began) ends CANCELLED — on PostgreSQL too, where its
 * end was once never stored: the run's attempt had closed its log's writer, and the cancellation's RunFinished waited
 * for it for ever (the mutation never answered). Runs on the embedded store, and on PostgreSQL with
 * AEON_TEST_DATABASE_URL.
 */
let server: TestServer
beforeAll(async () => {
  server = await startServer({
    script: {
      reasoning_step_user: [{ delayMs: 4000, output: { stepOutput: "(17 + 25) * 3 = 126", clarityState: "CLEAR" } }]
    }
  })
})
afterAll(async () => {
  await server?.stop()
})

describe("cancelling a run at once", () => {
  it("a run cancelled as soon as it is placed ends CANCELLED, stored so", async () => {
    const started = await gql(server.url, `mutation($i: RunTaskInput!) { runTask(input: $i) { id status } }`, {
      i: { task: "Compute (17 + 25) * 3 and explain the result", mode: "FULL" }
    })
    const id = started.body.data.runTask.id as string
    const cancelled = await gql(server.url, `mutation($id: ID!) { cancelRun(id: $id) { status } }`, { id })
    expect(cancelled.body.data.cancelRun.status).toBe("CANCELLED")
    const listed = await gql(server.url, `{ runs(status: CANCELLED, first: 10) { edges { node { id } } } }`)
    expect(listed.body.data.runs.edges.map((e: { node: { id: string } }) => e.node.id)).toContain(id)
  }, 30_000)
})
