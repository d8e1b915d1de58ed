import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { startServer, type TestServer } from "../support/server.js"

/**
 * A conversation a newcomer can try offline (#76 item 4): the stand-in is rule-based, but a follow-up that says
 * "that" takes the number the turn before it answered with — on a thread (`aeon run --thread`) and on a protocol that
 * sends the whole history (`/v1`, with the openai client).
 */
let app: TestServer
beforeAll(async () => {
  app = await startServer()
})
afterAll(() => app?.stop())

describe("an offline follow-up (#76.4)", () => {
  it("/v1: 'Multiply that by 2' after 45 is 90", async () => {
    const client = new OpenAI({ baseURL: app.url.replace(/\/graphql$/, "/v1"), apiKey: "none", maxRetries: 0 })
    const done = await client.chat.completions.create({
      model: "aeon",
      messages: [
        { role: "user", content: "What is 6 * 7 plus 3?" },
        { role: "assistant", content: "45" },
        { role: "user", content: "Multiply that by 2" }
      ]
    })
    expect(done.choices[0]!.message.content).toBe("90")
  })

  it("aeon run --thread: 45, then 90, then 'Add 10 to it' is 100", async () => {
    const { aeon } = cliIn("aeon-follow-up-")
    const first = JSON.parse((await aeon("run", "What is 6 * 7 plus 3?", "--thread", "t", "--json")).stdout)
    expect(first.finalAnswer.answerText).toBe("45")
    const second = JSON.parse((await aeon("run", "Multiply that by 2", "--thread", "t", "--json")).stdout)
    expect(second.finalAnswer.answerText).toBe("90")
    const third = JSON.parse((await aeon("run", "Add 10 to it", "--thread", "t", "--json")).stdout)
    expect(third.finalAnswer.answerText).toBe("100")
  }, 60_000)
})
