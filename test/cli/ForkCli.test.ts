import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "aeon-fork-cli-"))
const env: Record<string, string> = { ...process.env as Record<string, string>, AEON_DATA_DIR: join(dir, "data") }
for (
  const k of ["AEON_MODEL_PROVIDER", "AEON_LLM_API_KEY", "AEON_LLM_BASE_URL", "OPENAI_API_KEY", "AEON_DATABASE_URL"]
) {
  delete env[k]
}
const aeon = (...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["bin/aeon.mjs", ...args],
      { env, encoding: "utf8", timeout: 60_000 },
      (e, stdout, stderr) => resolve({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stdout, stderr })
    )
  )

describe("aeon fork and aeon replay (#34)", () => {
  it("replays a recorded run identically, forks it at an event with a new budget, refuses a bad seq", async () => {
    const source = JSON.parse(
      (await aeon("run", "--mode", "full", "Compute (17 + 25) * 3 and explain the result", "--json")).stdout
    )
    const replay = await aeon("replay", source.runId)
    expect(replay.code).toBe(0)
    expect(replay.stdout).toMatch(/^identical: run .* no model asked/)
    const replayJson = JSON.parse((await aeon("replay", source.runId, "--json")).stdout)
    expect(replayJson).toEqual({ runId: source.runId, identical: true, divergence: null })

    const fork = await aeon("fork", source.runId, "--at", "5", "--max-llm-calls", "30", "--json")
    expect(fork.code).toBe(0)
    const forked = JSON.parse(fork.stdout)
    expect(forked.runId).not.toBe(source.runId)
    expect(forked.status).toBe(source.status)
    expect(forked.finalAnswer).toEqual(source.finalAnswer)
    expect(forked.usage.replayed.llmCalls).toBeGreaterThan(0)
    expect(forked.budget.maxLlmCalls).toBe(30)

    const human = await aeon("fork", source.runId, "--at", "5")
    expect(human.stdout).toMatch(/LLM calls \(\d+ replayed, not paid\)/)
    const bad = await aeon("fork", source.runId, "--at", "999")
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("atSeq must be an event of run")
  })
})
