import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const ANSWER =
  "Forty-two: six sevens make 42, as the calculator computed and the explanation step confirmed in plain words."

/** `aeon run` on a pseudo-terminal (util-linux `script`), 120 columns: what a person at a terminal sees, raw. */
const onTerminal = (args: Array<string>, env: Record<string, string>) =>
  new Promise<string>((resolve, reject) => {
    const command = `stty cols 120 rows 50; ${
      [process.execPath, "bin/aeon.mjs", ...args].map((a) => `'${a}'`).join(" ")
    }`
    execFile("script", ["-qec", command, "/dev/null"], { env, encoding: "utf8", timeout: 60_000 }, (error, stdout) =>
      error && !stdout ? reject(error) : resolve(stdout))
  })

/** The screen's text without its terminal control sequences (colours, cursor moves). */
// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")

describe("aeon run on a terminal (#33 item 3)", () => {
  it("shows the final answer as it is written, in parts, then once in its place", async () => {
    const dir = mkdtempSync(join(tmpdir(), "aeon-tty-"))
    const script = join(dir, "script.json")
    writeFileSync(
      script,
      JSON.stringify({
        fallback: "offline",
        answer_synthesis_user: [{
          output: { answerText: ANSWER, confidence: 0.9, usedStepIds: ["s1"] },
          chunkDelayMs: 40
        }]
      })
    )
    const env: Record<string, string> = { ...process.env as Record<string, string>, AEON_DATA_DIR: join(dir, "data") }
    for (
      const k of ["AEON_MODEL_PROVIDER", "AEON_LLM_API_KEY", "AEON_LLM_BASE_URL", "OPENAI_API_KEY", "AEON_DATABASE_URL"]
    ) {
      delete env[k]
    }
    const screen = await onTerminal(["run", "--script", script, "--mode", "full", "Compute 6 * 7"], env)
    // the frames drawn while it was being written hold growing beginnings of the answer
    const frames = screen.split("(being written)").slice(1).map(plain)
    const shown = frames.map((f) => f.replace(/^[^\n]*\n/, "").split(/\r?\n/)[0]!.trim()).filter((t) => t !== "")
    const partial = new Set(shown.filter((t) => ANSWER.startsWith(t) && t.length < ANSWER.length))
    expect(partial.size).toBeGreaterThan(2)
    // and the answer printed once the run is over
    expect(plain(screen)).toContain(`\n${ANSWER}`)
  })
})
