import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/server.js"

/**
 * Background responses (#74 item 4) with the official `openai` client: a run whose step takes 4 s (scripted) is
 * answered at once, read back, cancelled; a quick one read back once done, then deleted. A server of its own (the
 * cancellation waits for the run's end, told by its store's notifications).
 */
let slow: TestServer
beforeAll(async () => {
  slow = await startServer({
    script: {
      reasoning_step_user: [{
        delayMs: 4000,
        output: { stepOutput: "(17 + 25) * 3 = 126", clarityState: "CLEAR", handoffToNext: "126" }
      }]
    }
  })
})
afterAll(async () => {
  await slow?.stop()
})

const client = () => new OpenAI({ baseURL: slow.url.replace(/\/graphql$/, "/v1"), apiKey: "none", maxRetries: 0 })

describe("POST /v1/responses in the background", () => {
  it("background: answers at once; retrieved later; cancelled; deleted", async () => {
    const c = client()
    const started = await c.responses.create({
      model: "aeon-full",
      input: "Compute (17 + 25) * 3 and explain the result",
      background: true
    })
    expect(["queued", "in_progress"]).toContain(started.status)
    expect(started.background).toBe(true)
    const cancelled = await c.responses.cancel(started.id)
    expect(cancelled.status).toBe("cancelled")
    expect((await c.responses.retrieve(started.id)).status).toBe("cancelled")

    const done = await c.responses.create({ model: "aeon", input: "Compute 2 + 2", background: true })
    await expect.poll(async () => (await c.responses.retrieve(done.id)).status, { timeout: 30_000 }).toBe("completed")
    await c.responses.delete(done.id)
    await expect(c.responses.retrieve(done.id)).rejects.toMatchObject({ status: 404 })
  }, 60_000)
})
