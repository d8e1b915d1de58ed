import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AnthropicStub, startAnthropicStub } from "../support/AnthropicStub.js"
import { cliIn } from "../support/cli.js"
import { type GeminiStub, startGeminiStub } from "../support/GeminiStub.js"
import { freePort } from "../support/process.js"
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
    expect(result.model).toBe("anthropic:claude-sonnet-5-5")
    expect(stub.requests.length).toBeGreaterThan(0)
    // only ANTHROPIC_API_KEY set: Claude is chosen without --provider
    stub.requests.length = 0
    const chosen = await aeon("run", "--json", "Compute 6 * 7")
    expect(JSON.parse(chosen.stdout).model).toBe("anthropic:claude-sonnet-5-5")
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

/**
 * Every provider fails fast, in the same words (#69 item 2): nothing listening ends the run FAILED in at most 3
 * requests, naming the URL's setting and the cause (no class name); no key for a provider's own endpoint ends it
 * before any request, naming the key's settings.
 */
describe("a provider out of reach, or without a key (#69.2)", () => {
  const providers = [
    { provider: "openai", url: "OPENAI_BASE_URL", path: "/v1", keys: "AEON_LLM_API_KEY or OPENAI_API_KEY" },
    { provider: "anthropic", url: "ANTHROPIC_BASE_URL", path: "", keys: "AEON_LLM_API_KEY or ANTHROPIC_API_KEY" },
    {
      provider: "google",
      url: "GOOGLE_GEMINI_BASE_URL",
      path: "",
      keys: "AEON_LLM_API_KEY, GOOGLE_API_KEY or GEMINI_API_KEY"
    }
  ]
  for (const p of providers) {
    it(`${p.provider}: a closed port ends the run FAILED in at most 3 requests, saying the connection was refused`, async () => {
      const { aeon, env } = cliIn(`aeon-closed-${p.provider}-`)
      env.AEON_LLM_API_KEY = "k-test"
      env[p.url] = `http://127.0.0.1:${await freePort()}${p.path}`
      const started = Date.now()
      const done = await aeon("run", "--provider", p.provider, "--json", "Compute 6 * 7")
      const result = JSON.parse(done.stdout)
      expect(result.status).toBe("FAILED")
      expect(result.usage.llmCalls).toBeGreaterThan(0)
      expect(result.usage.llmCalls).toBeLessThanOrEqual(3)
      expect(result.error).toContain(`(AEON_LLM_BASE_URL or ${p.url}): connection refused: nothing listens there`)
      expect(result.error).not.toMatch(/[A-Z][a-z]+Error\b|fetch failed/)
      expect(Date.now() - started).toBeLessThan(60_000)
    })

    it(`${p.provider}: no key set ends the run FAILED before any request, naming the key's settings`, async () => {
      const { aeon, env } = cliIn(`aeon-keyless-${p.provider}-`)
      for (const k of ["ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", p.url]) delete env[k]
      const done = await aeon("run", "--provider", p.provider, "--json", "Compute 6 * 7")
      const result = JSON.parse(done.stdout)
      expect(result.status).toBe("FAILED")
      expect(result.error).toContain(`no API key is set for ${p.provider} (${p.keys})`)
      expect(result.error).not.toMatch(/[A-Z][a-z]+Error\b/)
    })
  }
})
