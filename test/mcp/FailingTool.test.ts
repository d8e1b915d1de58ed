import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { type OpenAiStub, startOpenAiStub } from "../support/OpenAiStub.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * A tool that cannot answer costs few calls (#54 item 5): an MCP server that exits when its tool is called, or whose
 * tool never answers (past its timeout), ends the run after the plan's calls — no further simple iteration, no
 * escalation, no model asked to judge or refine a step that could not run — and the answer says what failed. Through
 * `aeon run` with the MCP configuration a person writes, against an OpenAI-compatible stub that counts requests.
 * (The code before: 3 iterations then FULL, 18 calls, for the crash; 8 calls and 14 s for the hang.)
 */
const dir = realpathSync(mkdtempSync(join(tmpdir(), "aeon-failing-tool-")))
const server = fileURLToPath(new URL("../support/mcp-servers/ledger.mjs", import.meta.url))
const configFor = (mode: string, calls: string, sibling = false) => {
  const file = join(dir, `${mode}${sibling ? "-sibling" : ""}.json`)
  const ledger = (m: string, c: string) => ({
    command: process.execPath,
    args: [server],
    env: { LEDGER_FILE: join(dir, "ledger.txt"), LEDGER_MODE: m, LEDGER_CALLS: c },
    timeoutMs: 3_000
  })
  // a second server whose tool could do the work (the run goes on to plan again, and plans the same call)
  const journal = sibling ? { journal: ledger("ok", join(dir, "journal.calls")) } : {}
  writeFileSync(file, JSON.stringify({ mcpServers: { ledger: ledger(mode, calls), ...journal } }))
  return file
}

let stub: OpenAiStub
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => {
    const prompt = promptOfRequest(body) ?? ""
    const plan = {
      goal: "Append the record",
      steps: [{
        stepId: "s1",
        description: "Append the record 'rent' to the ledger",
        tool: "ledger.append",
        toolInput: { record: "rent" }
      }]
    }
    return { content: JSON.stringify(prompt === "plan_generation_user" ? plan : byPrompt[prompt] ?? {}) }
  })
})
afterAll(() => stub.close())

describe("a tool that cannot answer (#54.5)", () => {
  for (
    const [mode, words] of [["crash", /McpServerUnavailable: ledger\.append/], [
      "hang",
      /timed out after 3000 ms/
    ]] as const
  ) {
    for (const runMode of ["auto", "full"]) {
      it(
        `${mode}, --mode ${runMode}: FAILED in at most 3 model calls and one try of the tool, the answer saying what failed`,
        async () => {
          const c = cliIn("aeon-failing-tool-")
          const calls = join(dir, `${mode}-${runMode}.calls`)
          Object.assign(c.env, {
            AEON_LLM_BASE_URL: stub.baseURL,
            AEON_LLM_API_KEY: "k",
            AEON_MCP_CONFIG: configFor(mode, calls)
          })
          stub.requests.length = 0
          const r = await c.aeon("run", "Append the record 'rent' to the ledger", "--mode", runMode, "--json")
          const result = JSON.parse(r.stdout)
          expect(result.status).toBe("FAILED")
          expect(result.usage.llmCalls).toBeLessThanOrEqual(3)
          expect(stub.requests.length).toBeLessThanOrEqual(3)
          expect(result.escalation).toBeNull()
          expect(result.finalAnswer.answerText).toMatch(words)
          expect(result.finalAnswer.answerText).toMatch(/^Not done: step s1 could not be done/)
          expect(result.error).toMatch(/Retrying the same plan cannot fix this/)
          // the tool tried once: no second try of a server that crashed, nor a second 3 s timeout (the time the run
          // takes follows from the tries; the suite asserts no wall-clock figure)
          expect(readFileSync(calls, "utf8").split("\n").filter(Boolean)).toEqual(["rent"])
        },
        60_000
      )
    }
  }

  it(
    "hang, another server's tool able to do the work, the next plan the same call: not tried again, at most 3 calls (#69.10)",
    async () => {
      const c = cliIn("aeon-failing-tool-")
      const calls = join(dir, "hang-sibling.calls")
      Object.assign(c.env, {
        AEON_LLM_BASE_URL: stub.baseURL,
        AEON_LLM_API_KEY: "k",
        AEON_MCP_CONFIG: configFor("hang", calls, true)
      })
      stub.requests.length = 0
      const r = await c.aeon("run", "Append the record 'rent' to the ledger", "--json")
      const result = JSON.parse(r.stdout)
      expect(result.status).toBe("FAILED")
      expect(result.usage.llmCalls).toBeLessThanOrEqual(3)
      expect(result.error).toMatch(/would call ledger\.append again with the input that failed in pass \d+/)
      expect(readFileSync(calls, "utf8").split("\n").filter(Boolean)).toEqual(["rent"])
    },
    60_000
  )
})
