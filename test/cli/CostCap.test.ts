import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { type OpenAiStub, startOpenAiStub } from "../support/OpenAiStub.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * A cost cap is enforced or refused, never void (#54 item 7): a model the price table knows under another id (a
 * router's "openai/…", a dated snapshot) is priced as its family and its cap stops the run; a model with no price
 * refuses an explicit --max-cost-usd at the start, coded and naming AEON_PRICE_TABLE; without a cap it runs, and the
 * text output says its cost is unknown rather than $0.
 */
let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => ({
    content: JSON.stringify(byPrompt[promptOfRequest(body) ?? ""] ?? {}),
    usage: { prompt_tokens: 400, completion_tokens: 100 }
  }))
})
afterAll(() => stub.close())

const cli = () => {
  const c = cliIn("aeon-cost-")
  c.env.AEON_LLM_BASE_URL = stub.baseURL
  c.env.AEON_LLM_API_KEY = "k"
  c.env.AEON_LLM_TIMEOUT_MS = "10000"
  delete c.env.AEON_PRICE_TABLE
  return c
}

describe("a cost cap on a model without a price (#54.7)", () => {
  for (const model of ["openai/gpt-4o-mini", "gpt-4o-mini-2024-07-18"]) {
    it(`${model} is priced as gpt-4o-mini: its cap stops the run`, async () => {
      const c = cli()
      c.env.AEON_MODEL = model
      const r = await c.aeon("run", "Compute 6 * 7", "--mode", "full", "--max-cost-usd", "0.001", "--json")
      const result = JSON.parse(r.stdout)
      expect(result.status).not.toBe("CONVERGED")
      expect(result.ttlExpiration.exhausted).toBe("cost")
      expect(result.usage.costUsd).toBeGreaterThan(0)
      expect(result.advisories.join(" ")).not.toMatch(/has no price/)
    }, 60_000)
  }

  it(
    "qwen3:8b with --max-cost-usd is refused at the start, coded, naming AEON_PRICE_TABLE; nothing is sent",
    async () => {
      const c = cli()
      c.env.AEON_MODEL = "qwen3:8b"
      stub.requests.length = 0
      const r = await c.aeon("run", "Compute 6 * 7", "--max-cost-usd", "0.00001")
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(/^aeon: /m)
      expect(r.stderr).toContain("maxCostUsd cannot be enforced: model qwen3:8b has no price")
      expect(r.stderr).toContain("AEON_PRICE_TABLE")
      expect(stub.requests).toHaveLength(0)
      const runs = await c.aeon("runs", "--json")
      expect(JSON.parse(runs.stdout)).toEqual([])
    },
    60_000
  )

  it("qwen3:8b without a cap runs, and the text output says its cost is unknown", async () => {
    const c = cli()
    c.env.AEON_MODEL = "qwen3:8b"
    const r = await c.aeon("run", "Compute 6 * 7", "--mode", "full")
    expect(r.code).toBe(0)
    expect(r.stdout + r.stderr).toContain("cost unknown")
    expect(r.stdout + r.stderr).not.toContain("$0.0000")

    const priced = cli()
    priced.env.AEON_MODEL = "qwen3:8b"
    priced.env.AEON_PRICE_TABLE = JSON.stringify({ "qwen3:8b": { inputPerMillion: 1, outputPerMillion: 1 } })
    const capped = await priced.aeon("run", "Compute 6 * 7", "--mode", "full", "--max-cost-usd", "5", "--json")
    expect(JSON.parse(capped.stdout).status).toBe("CONVERGED")
  }, 60_000)
})
