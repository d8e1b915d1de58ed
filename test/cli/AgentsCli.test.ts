import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { type OpenAiStub, startOpenAiStub } from "../support/OpenAiStub.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * Agents from the CLI (#72): the operator's file (AEON_AGENTS), `aeon agents`, `aeon agents show NAME` and
 * `aeon run --agent NAME[@V]`, the built command against a stub OpenAI endpoint that keeps every request.
 */
let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => ({ content: JSON.stringify(byPrompt[promptOfRequest(body) ?? ""] ?? {}) }))
})
afterAll(() => stub.close())

const cli = (agents: object) => {
  const c = cliIn("aeon-agents-")
  c.env.AEON_LLM_BASE_URL = stub.baseURL
  c.env.AEON_LLM_API_KEY = "k"
  const path = join(c.dir, "agents.json")
  writeFileSync(path, JSON.stringify(agents))
  c.env.AEON_AGENTS = path
  return c
}

const MATH = {
  description: "Arithmetic with the calculator",
  instructions: "You are the math desk.",
  tools: ["calculator"],
  model: { provider: "openai", model: "gpt-math" },
  mode: "SIMPLE"
}

describe("agents from the CLI", () => {
  it("lists and shows the operator's agents; a changed definition is the next version", async () => {
    const c = cli({ agents: { math: MATH } })
    const listed = await c.aeon("agents")
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain("math@1  Arithmetic with the calculator")
    writeFileSync(c.env.AEON_AGENTS!, JSON.stringify({ agents: { math: { ...MATH, instructions: "Be exact." } } }))
    const shown = await c.aeon("agents", "show", "math", "--json")
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: "math", version: 2, instructions: "Be exact." })
    expect(JSON.parse(shown.stdout).versions.map((v: any) => v.version)).toEqual([1, 2])
    const missing = await c.aeon("agents", "show", "nobody")
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain("no agent nobody")
  })

  it("aeon run --agent runs it with its model, instructions and tools; @1 the old version; unknown is refused", async () => {
    const c = cli({ agents: { math: MATH } })
    stub.requests.length = 0
    const ran = await c.aeon("run", "--agent", "math", "--json", "Compute 6 * 7")
    expect(ran.code).toBe(0)
    expect(JSON.parse(ran.stdout).mode).toBe("SIMPLE")
    expect(stub.requests.length).toBeGreaterThan(0)
    expect(stub.requests.every((r) => r.model === "gpt-math")).toBe(true)
    expect(stub.requests.some((r) => String(r.messages[0].content).includes("You are the math desk."))).toBe(true)
    const refused = await c.aeon("run", "--agent", "nobody", "Compute 6 * 7")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("no agent nobody")
    const beyond = await c.aeon("run", "--agent", "math", "--tools", "clock.now", "Compute 6 * 7")
    expect(beyond.code).toBe(1)
    expect(beyond.stderr).toContain("tools: clock.now is not one of the agent's tools")
    const bad = cli({ agents: { math: { ...MATH, tools: ["nothing.here"] } } })
    const stopped = await bad.aeon("agents")
    expect(stopped.code).not.toBe(0)
    expect(stopped.stderr).toContain("agents.math.tools.0")
  })
})
