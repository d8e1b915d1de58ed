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

  it("a bad flag value names the flag, as every refusal of aeon's does (#60.5)", async () => {
    const integer = await aeon("run", "Compute 1+1", "--max-llm-calls", "abc")
    expect(integer.code).toBe(1)
    expect(integer.stderr.trim()).toBe("aeon: --max-llm-calls: 'abc' is not an integer")
    const number = await aeon("run", "Compute 1+1", "--max-cost-usd=cheap")
    expect(number.stderr.trim()).toBe("aeon: --max-cost-usd: 'cheap' is not a number")
    const choice = await aeon("run", "--mode", "fast", "Compute 1+1")
    expect(choice.stderr.trim()).toBe("aeon: --mode: expected one of auto, simple, full (got 'fast')")
  })

  it("a mistyped subcommand is named with the command's own subcommands (#60.5)", async () => {
    const typo = await aeon("memory", "serch", "17")
    expect(typo.code).toBe(1)
    expect(typo.stderr.trim()).toBe(
      "aeon memory: unknown command serch (did you mean search?); aeon memory takes list, search, forget"
    )
    expect((await aeon("memory", "list")).code).toBe(0)
  })

  it("--help names every tool of Aeon's MCP server (#60.5)", async () => {
    const help = (await aeon("--help")).stdout
    for (const tool of ["run_task", "get_run", "respond", "cancel_run"]) expect(help).toContain(tool)
  })

  it("a waiting run is said to wait, and a repeated task says its plan was reused (#60.5)", async () => {
    const waiting = await aeon("run", "Compute 17 + 25", "--mode", "full", "--approve-plan", "--json")
    const runId = JSON.parse(waiting.stdout)[0]?.runId ?? waiting.stdout.match(/[0-9a-f-]{36}/)![0]
    const inspected = (await aeon("inspect", runId)).stdout.trimEnd().split("\n").at(-1)!
    expect(inspected).toMatch(/waiting for a person .* · not finished · offline · run /)
    expect(inspected).not.toContain("undefined")
    expect((await aeon("run", "Compute 19 + 23")).code).toBe(0)
    const again = await aeon("run", "Compute 19 + 23")
    expect(again.stdout).toMatch(/0 LLM calls \(plan reused from run [0-9a-f-]{36}\)/)
  })

  it(
    "words on the command line (#76.5): enums in any case, a flag without its value, an unquoted task, a mistyped command",
    async () => {
      // an enum value in any case, as GraphQL writes it
      const full = await aeon("run", "--mode", "FULL", "--json", "What is 6 * 7 plus 3?")
      expect(full.code, full.stderr).toBe(0)
      expect(JSON.parse(full.stdout).mode).toBe("FULL")
      expect((await aeon("runs", "--status", "converged")).stdout).toContain("CONVERGED")
      // a flag given without its value is named (not "unknown argument", not ignored)
      const schema = await aeon("run", "Compute 1+1", "--output-schema")
      expect(schema.stderr).toBe("aeon run: --output-schema needs a value (aeon run --help says what it takes)\n")
      const file = await aeon("run", "--file", "--json", "Compute 1+1")
      expect(file.code).toBe(1)
      expect(file.stderr).toContain("aeon run: --file needs a value")
      expect((await aeon("tools", "--for")).stderr).toContain("aeon tools: --for needs a value")
      // a task the shell split into words
      const unquoted = await aeon("run", "What", "is", "6", "*", "7")
      expect(unquoted.stderr).toBe(`aeon run: the task is one argument: quote it (aeon run "What is 6 * 7")\n`)
      // --output-strict alone
      expect((await aeon("run", "Compute 1+1", "--output-strict")).stderr).toBe(
        "aeon: --output-strict needs --output-schema FILE: it asks that the schema's value be strict\n"
      )
      // a mistyped command, with the aeon: prefix
      const rn = await aeon("rn", "Compute 1+1")
      expect(rn.code).toBe(1)
      expect(rn.stderr).toBe("aeon: unknown command rn (did you mean run?); aeon --help lists the commands\n")
      // aeon threads with a header over its rows
      await aeon("run", "What is 6 * 7 plus 3?", "--thread", "words-1")
      const threads = (await aeon("threads")).stdout.split("\n")
      expect(threads[0]).toMatch(/^THREAD +TURNS +UPDATED +LAST TASK$/)
      expect(threads[1]).toMatch(/^words-1 +1 turn +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +What is 6 \* 7 plus 3\?$/)
      // help without placeholders: each flag says what it is; the model's flags name every provider
      const help = (await aeon("run", "--help")).stdout
      expect(help).not.toMatch(/threadId \(threadId\)|an integer \(thinkingTokens\)/)
      expect(help).toMatch(/--thread text +the thread \(conversation\) this run is the next turn of/)
      expect(help).toMatch(/--thinking-tokens integer +a thinking budget for each model call/)
      expect(help).toMatch(/--base-url .*ANTHROPIC_BASE_URL for anthropic, GOOGLE_GEMINI_BASE_URL for google/)
      expect(help).toMatch(/--provider .*google when only GOOGLE_API_KEY or GEMINI_API_KEY is/)
      // chat's help lists only what a conversation takes
      const chatHelp = (await aeon("chat", "--help")).stdout
      expect(chatHelp).toMatch(/--thread text +take up this thread again/)
      expect(chatHelp).not.toMatch(/--dry-run|--output-strict/)
      expect((await aeon("chat", "--dry-run")).stderr).toContain("aeon chat: unknown flag --dry-run")
      // the version alone on its line
      expect((await aeon("--version")).stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
    },
    60_000
  )
})
