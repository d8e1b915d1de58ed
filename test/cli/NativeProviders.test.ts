import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AnthropicStub, startAnthropicStub } from "../support/AnthropicStub.js"
import { cliIn } from "../support/cli.js"
import { type GeminiStub, startGeminiStub } from "../support/GeminiStub.js"
import { byPrompt, promptOfGemini, promptOfMessages } from "../support/stubAnswers.js"

/** `aeon run` on Claude and Gemini as a user sets them up: their own key and base URL names, against their stubs. */
let stub: AnthropicStub
let google: GeminiStub
beforeAll(async () => {
  stub = await startAnthropicStub()
  stub.replyWith((body) => ({ text: JSON.stringify(byPrompt[promptOfMessages(body) ?? ""] ?? {}) }))
  google = await startGeminiStub()
  google.replyWith((body) => ({ text: JSON.stringify(byPrompt[promptOfGemini(body) ?? ""] ?? {}) }))
})
afterAll(async () => {
  await stub?.close()
  await google?.close()
})

describe("aeon run on Claude and Gemini (#57)", () => {
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

  it("Gemini: GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL choose google; converged, the model named", async () => {
    const { aeon, env } = cliIn("aeon-gemini-")
    env.GEMINI_API_KEY = "g-test"
    env.GOOGLE_GEMINI_BASE_URL = google.baseURL
    const done = await aeon("run", "--json", "Compute 6 * 7")
    expect(done.code).toBe(0)
    const result = JSON.parse(done.stdout)
    expect(result.status).toBe("CONVERGED")
    expect(result.model).toBe("google:gemini-2.5-flash")
    expect(google.requests.length).toBeGreaterThan(0)
  })
})
