import { TaskState } from "@a2a-js/sdk"
import { ClientFactory } from "@a2a-js/sdk/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import { userMessage } from "../support/a2a.js"
import { convergingScript, reasoned } from "../support/scripts.js"
import { gql, startServer, type TestServer, waitFor } from "../support/server.js"

// @a2a-js/sdk's own client streams a task and goes away while the run is still working (its first step's model call
// takes 20 s): the run's follower on the server must stop then, not when the run next moves.
let server: TestServer
beforeAll(async () => {
  server = await startServer({
    script: { ...convergingScript(), [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: 20_000 }] }
  })
})
afterAll(() => server?.stop())

/** The subscriptions open on the server now (the A2A stream's followers of the run's events and text among them). */
const subscriptions = async (): Promise<number> =>
  (await gql(server.url, `{ health { subscriptions } }`)).body.data.health.subscriptions

const statusOf = async (runId: string) =>
  (await gql(server.url, `query($id: ID!) { run(id: $id) { status } }`, { id: runId })).body.data.run.status

describe("an A2A stream whose client goes away", () => {
  it("stops following the run at once, while the run goes on", async () => {
    const client = await new ClientFactory().createFromUrl(server.url.replace(/\/graphql$/, ""))
    const leaving = new AbortController()
    const stream = client.sendMessageStream(
      {
        tenant: "",
        message: userMessage("Compute 6 * 7 and explain it"),
        configuration: undefined,
        metadata: undefined
      },
      { signal: leaving.signal }
    )
    let runId = ""
    // until the run executes its plan (its first step's model call is under way for 20 s)
    for await (const r of stream) {
      if (r.payload?.$case === "task") runId = r.payload.value.id
      const said = r.payload?.$case === "statusUpdate" ? r.payload.value.status?.message : undefined
      const text = said?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("")
      if (
        r.payload?.$case === "statusUpdate" && r.payload.value.status?.state === TaskState.TASK_STATE_WORKING &&
        text?.includes("execute")
      ) break
    }
    expect(runId).not.toBe("")
    expect(await subscriptions()).toBeGreaterThan(0)
    leaving.abort()
    // the followers are gone well before the model answers (20 s), and the run is still going
    await waitFor(async () => ((await subscriptions()) === 0 ? true : undefined), 5_000)
    expect(await statusOf(runId)).toBe("RUNNING")
  })
})
