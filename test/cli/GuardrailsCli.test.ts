import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { type OpenAiStub, startOpenAiStub } from "../support/OpenAiStub.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * Guardrails from the CLI (#71): the operator's file (AEON_GUARDRAILS) and a run's own (`aeon run --guardrails FILE`),
 * the built command against a stub OpenAI endpoint that keeps every request; `aeon inspect` says what triggered.
 */
let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => ({ content: JSON.stringify(byPrompt[promptOfRequest(body) ?? ""] ?? {}) }))
})
afterAll(() => stub.close())

const EMAIL = "ines.duarte@example.org"

const cli = () => {
  const c = cliIn("aeon-guardrails-")
  c.env.AEON_LLM_BASE_URL = stub.baseURL
  c.env.AEON_LLM_API_KEY = "k"
  c.env.AEON_MODEL = "gpt-4o-mini"
  const file = (name: string, value: unknown) => {
    const path = join(c.dir, name)
    writeFileSync(path, JSON.stringify(value))
    return path
  }
  c.env.AEON_GUARDRAILS = file("guardrails.json", { input: [{ type: "pii", action: "redact", kinds: ["email"] }] })
  return { ...c, file }
}

describe("guardrails from the CLI", () => {
  it(
    "AEON_GUARDRAILS redacts the task before the provider; aeon inspect says which guardrail, never the value",
    async () => {
      const c = cli()
      stub.requests.length = 0
      const ran = await c.aeon("run", `Compute 6 * 7 for ${EMAIL}`, "--mode", "full", "--no-memory", "--json")
      expect(ran.code).toBe(0)
      expect(JSON.stringify(stub.requests)).not.toContain(EMAIL)
      const { runId } = JSON.parse(ran.stdout)
      const inspected = await c.aeon("inspect", runId)
      expect(inspected.stdout).toContain("guardrail pii redacted email at the input: <EMAIL_1>")
      expect(inspected.stdout).not.toContain(EMAIL)
      const json = JSON.parse((await c.aeon("inspect", runId, "--json")).stdout)
      expect(json.guardrails).toEqual([
        { point: "input", guardrail: "pii", action: "redact", kinds: ["email"], placeholders: ["<EMAIL_1>"] }
      ])
    },
    60_000
  )

  it("--guardrails FILE adds a run's own: a denylisted task is blocked, exit 1, nothing sent", async () => {
    const c = cli()
    const own = c.file("own.json", {
      input: [{ type: "denylist", name: "codenames", action: "block", words: ["falcon"] }]
    })
    stub.requests.length = 0
    const ran = await c.aeon("run", "What does Falcon cost?", "--no-memory", "--guardrails", own)
    expect(ran.code).toBe(1)
    expect(ran.stderr + ran.stdout).toContain("guardrail codenames blocked the input: it holds word")
    expect(stub.requests).toEqual([])
  }, 60_000)

  it("a bad operator's file is refused at start, naming the field", async () => {
    const c = cli()
    c.env.AEON_GUARDRAILS = c.file("bad.json", { output: [{ type: "secrets", action: "hide" }] })
    const ran = await c.aeon("run", "Compute 6 * 7", "--no-memory")
    expect(ran.code).not.toBe(0)
    expect(ran.stderr).toMatch(/guardrails .*bad\.json: output\.0\.action/)
  }, 60_000)
})
