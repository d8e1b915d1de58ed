import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AnthropicStub, startAnthropicStub } from "../support/AnthropicStub.js"
import { cliIn } from "../support/cli.js"
import { byPrompt, promptOfMessages } from "../support/stubAnswers.js"

/** `aeon run` on Claude as a user sets it up: ANTHROPIC_API_KEY and the provider, against the Messages API stub. */
let stub: AnthropicStub
beforeAll(async () => {
  stub = await startAnthropicStub()
  stub.replyWith((body) => ({ text: JSON.stringify(byPrompt[promptOfMessages(body) ?? ""] ?? {}) }))
})
afterAll(() => stub?.close())

describe("aeon run on Claude (#57)", () => {
  it("--provider anthropic with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL: converged, the model named", async () => {
    const { aeon, env } = cliIn("aeon-claude-")
    env.ANTHROPIC_API_KEY = "sk-ant-test"
    env.ANTHROPIC_BASE_URL = stub.baseURL
    const done = await aeon("run", "--provider", "anthropic", "--json", "Compute 6 * 7")
    expect(done.code).toBe(0)
    const result = JSON.parse(done.stdout)
    expect(result.status).toBe("CONVERGED")
    expect(result.model).toBe("anthropic:claude-sonnet-4-5")
    expect(stub.requests.length).toBeGreaterThan(0)
    // only ANTHROPIC_API_KEY set: Claude is chosen without --provider
    stub.requests.length = 0
    const chosen = await aeon("run", "--json", "Compute 6 * 7")
    expect(JSON.parse(chosen.stdout).model).toBe("anthropic:claude-sonnet-4-5")
  })
})
