import { describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"

/** What the CLI says when it is used wrong or a command cannot do what was asked (#42 item 4). */
const { aeon, dir } = cliIn("aeon-messages-")

describe("the CLI's messages (#42)", () => {
  it("an unknown flag is named wherever it stands, with the nearest known flag", async () => {
    const before = await aeon("run", "--bogus", "Compute 1+1")
    expect(before.code).toBe(1)
    expect(before.stderr.trim()).toBe("aeon run: unknown flag --bogus; aeon run --help lists its flags")
    const after = await aeon("run", "Compute 1+1", "--jsn")
    expect(after.stderr).toContain("unknown flag --jsn (did you mean --json?)")
    const valued = await aeon("runs", "--limt=3")
    expect(valued.stderr).toContain("unknown flag --limt (did you mean --limit?)")
    // what follows -- is not a flag, and a known flag still works
    expect((await aeon("tools", "--json")).code).toBe(0)
  })

  it("--help fits a screen: a line per flag saying what it does, no type boilerplate", async () => {
    for (const command of ["run", "eval", "fork", "serve"]) {
      const help = await aeon(command, "--help")
      expect(help.code).toBe(0)
      const lines = help.stdout.trimEnd().split("\n")
      expect(lines.length, command).toBeLessThanOrEqual(60)
      expect(help.stdout).not.toContain("This setting is optional")
      expect(help.stdout).not.toContain("A floating point number")
    }
    const run = (await aeon("run", "--help")).stdout
    expect(run).toMatch(/^ {2}--max-cost-usd float +most the run may spend on model calls/m)
    expect(run).toMatch(/^aeon run \[flags\] \[<task>\]$/m)
  })

  it("a failed run prints its error once", async () => {
    const failed = await aeon("run", "Compute 1+1", "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1")
    expect(failed.code).toBe(1)
    const all = failed.stdout + failed.stderr
    expect(all.split("cannot reach http://127.0.0.1:9/v1").length - 1).toBe(1)
    expect(failed.stdout).toMatch(/^failed · 0 passes · 2 LLM calls/m)
  })

  it("aeon replay: 2 when it cannot replay, apart from a divergence (1); file errors name the file; export says what it wrote", async () => {
    const nope = await aeon("replay", "nope")
    expect(nope.code).toBe(2)
    expect(nope.stderr).toContain("run nope does not exist")
    const set = await aeon("eval", "nope.jsonl")
    expect(set.code).toBe(1)
    expect(set.stderr.trim()).toBe("aeon: cannot read the eval set nope.jsonl: no such file")

    const run = JSON.parse((await aeon("run", "Compute 2 + 3", "--json")).stdout)
    const exported = await aeon("export", run.runId, "--as-case", "--out", `${dir}/case.jsonl`)
    expect(exported.code).toBe(0)
    expect(exported.stderr).toContain(
      `wrote eval case run-${run.runId.slice(0, 8)} (run ${run.runId}) to ${dir}/case.jsonl`
    )
  })

  it("a run whose calls were not recorded cannot be replayed: exit 2, saying why", async () => {
    const unrecorded = cliIn("aeon-unrecorded-")
    unrecorded.env.AEON_RECORD_PROMPTS = "0"
    const r = JSON.parse((await unrecorded.aeon("run", "Compute 2 + 3", "--json")).stdout).runId as string
    const replay = await unrecorded.aeon("replay", r)
    expect(replay.code).toBe(2)
    expect(replay.stderr).toContain("its model calls were not recorded")
  })
})
