import { Effect, Redacted } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { onTerminal } from "../support/cli.js"
import { backend, freshDatabase } from "../support/database.js"
import { lockHolder } from "../support/lockHolder.js"
import { planOut, refiningForever, seedScriptFile } from "../support/scripts.js"

const dir = mkdtempSync(join(tmpdir(), "aeon-cli-"))
const db = freshDatabase()
const env: Record<string, string> = {
  ...process.env as Record<string, string>,
  AEON_DATA_DIR: join(dir, "data"),
  AEON_MODEL_PROVIDER: "",
  AEON_LLM_API_KEY: "",
  AEON_LLM_BASE_URL: ""
}
if (db.url) env.AEON_DATABASE_URL = Redacted.value(db.url)
for (
  const k of [
    "AEON_MODEL_PROVIDER",
    "AEON_LLM_API_KEY",
    "AEON_LLM_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "NO_COLOR",
    "FORCE_COLOR"
  ]
) {
  delete env[k]
}
// CI machines set CI, which makes picocolors' default colour piped output: the binary must not.
env.CI = "true"

/** Runs a command as a child process (asynchronously: the test worker stays responsive). */
const execWith = (environment: Record<string, string>, file: string, args: Array<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      file,
      args,
      { env: environment, encoding: "utf8", timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })
const exec = (file: string, args: Array<string>) => execWith(env, file, args)
const aeon = (...args: Array<string>) => exec(process.execPath, ["bin/aeon.mjs", ...args])
/** `aeon run "Seed the memory"` with memory.write under approval (the script's plan writes the seed). */
const seeding = (script: string, ...more: Array<string>) =>
  aeon("run", "Seed the memory", "--full", "--script", script, "--approve-tools", "memory.write", ...more)
const runJson = async (...args: Array<string>) => {
  const r = await aeon("run", ...args, "--json")
  let json: any
  try {
    json = JSON.parse(r.stdout)
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`)
  }
  return { ...r, json }
}

const verdict = (converged: boolean) => ({
  output: {
    converged,
    completenessScore: converged ? 1 : 0.3,
    coherenceScore: 1,
    consistencyAlignment: {},
    reasoning: "r",
    confidence: 1,
    reasonCodes: converged ? ["complete"] : ["incomplete"]
  }
})
const script = (path: string, verdicts: Array<boolean>) => {
  writeFileSync(path, JSON.stringify({ fallback: "offline", convergence_assessment_user: verdicts.map(verdict) }))
  return path
}
const neverConverges = join(dir, "never.json")
const convergesThird = join(dir, "third.json")
const task = "Compute (17 + 25) * 3 and explain the result"

beforeAll(async () => {
  await Effect.runPromise(db.setup)
  script(neverConverges, [false])
  script(convergesThird, [false, false, true])
}, 60_000)

describe(`the aeon binary (${backend})`, () => {
  it("run on the offline model converges, prints the answer and a summary, exit 0; inspect shows the passes; runs lists it", async () => {
    const r = await aeon("run", task, "--user", "cli-user")
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("126")
    expect(r.stdout).not.toContain("\u001b[") // piped output carries no colour codes
    expect(r.stdout).toMatch(
      /converged · \d+ pass(es)? · \d+ LLM calls · \d+ tokens · \$0\.0000 · [\d.]+s · offline · run /
    )
    const runId = r.stdout.match(/run ([0-9a-f-]{36})/)![1]!
    const inspect = await aeon("inspect", runId)
    expect(inspect.code).toBe(0)
    expect(inspect.stdout).toContain("├─ pass 0 · PLAN")
    expect(inspect.stdout).toContain("├─ pass 1 · EXECUTE → EVALUATE")
    expect(inspect.stdout).toContain("convergence: converged")
    const inspectJson = JSON.parse((await aeon("inspect", runId, "--json")).stdout)
    expect(inspectJson.passes.length).toBeGreaterThanOrEqual(2)
    // the run's model calls as recorded: each prompt and answer, where the run made it
    const calls = await aeon("inspect", runId, "--calls")
    expect(calls.code).toBe(0)
    expect(calls.stdout).toMatch(/^#\d+ plan_generation_user · offline · pass 0 · PLAN · \d+\+\d+ tokens/m)
    expect(calls.stdout).toContain("\n\nTask:\nCompute (17 + 25) * 3 and explain the result")
    expect(calls.stdout).toMatch(/── user\nReturn \{"goal"/)
    expect(calls.stdout).toMatch(/── response \(stop\)\n\{"goal"/)
    const callsJson = JSON.parse((await aeon("inspect", runId, "--calls", "--json")).stdout)
    expect(callsJson.length).toBe(Number(r.stdout.match(/(\d+) LLM calls/)![1]))
    const runs = await aeon("runs", "--user", "cli-user")
    expect(runs.stdout).toContain(runId)
    expect(runs.stdout.split("\n")[0]).toMatch(/^ID\s+STATUS\s+MODE/)
    expect((await aeon("runs", "--user", "nobody")).stdout.trim()).toBe("no runs")
    expect((await aeon("runs", "--status", "FAILED", "--json")).stdout.trim()).not.toContain(runId)
  })

  it("--full skips simple mode; the default AUTO runs simple iterations", async () => {
    const full = await runJson(task, "--full")
    expect(full.json).toMatchObject({ mode: "FULL", simpleIterations: [], status: "CONVERGED" })
    const auto = await runJson(task)
    expect(auto.json.mode).toBe("AUTO")
    expect(auto.json.simpleIterations).toHaveLength(1)
    expect((await runJson(task, "--mode", "simple")).json.mode).toBe("SIMPLE")
  })

  it("--simple N and --no-escalate: N iterations then stop, exit 2; without it the run escalates", async () => {
    // a task the text signals call vague: its iterations are judged by the (scripted) model, not by the checks alone
    const task = "Compute (17 + 25) * 3 and explain something about the result"
    const stop = await runJson(task, "--script", neverConverges, "--simple", "2", "--no-escalate")
    expect(stop.code).toBe(2)
    expect(stop.json.simpleIterations).toHaveLength(2)
    expect(stop.json.escalation).toBeNull()
    expect(stop.json.failureSummary.totalIterations).toBe(2)
    const escalate = await runJson(task, "--provider", "scripted", "--script", convergesThird, "--simple", "2")
    expect(escalate.json.simpleIterations).toHaveLength(2)
    expect(escalate.json.escalation).toMatchObject({ iterationsRun: 2 })
    expect(escalate.json.status).toBe("CONVERGED")
    expect(escalate.code).toBe(0)
    expect(escalate.json.model).toBe("scripted")
  })

  it("every budget flag lands in the run's budget; a crossed cap stops it", async () => {
    const r = await runJson(
      task,
      "--full",
      "--ttl",
      "2",
      "--deadline",
      "30s",
      "--max-cost-usd",
      "0.5",
      "--max-tokens",
      "90000",
      "--max-steps",
      "9",
      "--max-llm-calls",
      "3"
    )
    const restricted = await runJson(task, "--full", "--tools", "memory.read", "--parallelism", "2")
    expect(restricted.json.passes[0].planState.steps.some((s: { tool?: string }) => s.tool === "calculator")).toBe(
      false
    )
    expect(r.json.budget).toEqual({
      ttl: 2,
      deadlineMs: 30_000,
      maxCostUsd: 0.5,
      maxTokens: 90_000,
      maxLlmCalls: 3,
      maxSteps: 9
    })
    expect(r.json.terminationReason).toBe("budget_exhausted")
    expect(r.json.usage.llmCalls).toBe(3)
    expect(r.code).toBe(2)
    const ttl = await runJson(task, "--full", "--ttl", "1", "--script", neverConverges)
    expect(ttl.json.terminationReason).toBe("ttl_expired")
    expect(ttl.json.passes.filter((p: any) => p.passNumber > 0)).toHaveLength(1)
  })

  it("--answer-matches and --criteria are convergence criteria", async () => {
    const r = await runJson(task, "--full", "--answer-matches", "^never this$", "--ttl", "1")
    expect(r.json.converged).toBe(false)
    expect(r.json.passes.at(-1).evaluationResults.convergence.reasonCodes).toContain("answer_does_not_match")
    const file = join(dir, "criteria.json")
    writeFileSync(file, JSON.stringify({ answerMentions: ["126"], completenessThreshold: 0.5 }))
    expect((await runJson(task, "--full", "--criteria", file)).json.converged).toBe(true)
    writeFileSync(file, JSON.stringify({ answerMentions: ["127"] }))
    const miss = await runJson(task, "--full", "--criteria", file, "--ttl", "1")
    expect(miss.json.passes.at(-1).evaluationResults.convergence.reasonCodes).toContain("answer_missing_terms:127")
  })

  it("on a terminal, progress is redrawn in place (log-update); not on a pipe", async () => {
    const tty = await exec("script", [
      "-qec",
      `stty cols 120 rows 40; ${process.execPath} bin/aeon.mjs run '${task}' --full`,
      "/dev/null"
    ])
    expect(tty.stdout).toContain("pass 1 · EXECUTE")
    expect(tty.stdout).toContain("convergence: completeness 1.00")
    expect(tty.stdout).toContain("\u001b[1A") // cursor up: the frame is redrawn, not appended
    const piped = await aeon("run", task, "--full")
    expect(piped.stdout).not.toContain("\u001b[1A")
    expect(piped.stdout).not.toContain("pass 1 · EXECUTE")
  })

  it("bad flags and an unreachable provider exit 1 with a clear message", async () => {
    const bogus = await aeon("run", task, "--bogus")
    expect(bogus.code).toBe(1)
    expect(bogus.stderr + bogus.stdout).toContain("--bogus")
    const ttl = await aeon("run", task, "--ttl", "-2")
    expect(ttl.code).toBe(1)
    expect(ttl.stderr).toContain("budget.ttl: ttl must be a positive integer (was -2)")
    const deadline = await aeon("run", task, "--deadline", "soon")
    expect(deadline.code).toBe(1)
    expect(deadline.stderr).toContain("--deadline: \"soon\" is not a duration")
    const tools = await aeon("run", task, "--tools", "calculator,web.search")
    expect(tools.code).toBe(1)
    expect(tools.stderr).toContain("unknown tool web.search")
    const parallelism = await aeon("run", task, "--parallelism", "0")
    expect(parallelism.code).toBe(1)
    expect(parallelism.stderr).toContain("parallelism must be between 1 and 32")
    const lookahead = await aeon("run", task, "--answer-matches", "(?=1)\\d+")
    expect(lookahead.code).toBe(1)
    expect(lookahead.stderr).toContain("answerMatches is not a pattern the linear-time engine (RE2 syntax) accepts")
    const criteria = await aeon("run", task, "--criteria", join(dir, "missing.json"))
    expect(criteria.code).toBe(1)
    expect(criteria.stderr).toContain(`cannot read --criteria ${join(dir, "missing.json")}: no such file`)
    const unreachable = await aeon(
      "run",
      task,
      "--full",
      "--provider",
      "openai",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--model",
      "local-model"
    )
    expect(unreachable.code).toBe(1)
    // said once, in words: the URL, where it comes from, and why it cannot be reached
    expect(unreachable.stdout).toContain(
      "error: cannot reach http://127.0.0.1:9/v1 (AEON_LLM_BASE_URL or OPENAI_BASE_URL): fetch refuses this URL"
    )
    expect(unreachable.stderr).toBe("")
    expect(unreachable.stdout).toContain("openai:local-model")
    const badScript = join(dir, "bad-script.json")
    writeFileSync(badScript, JSON.stringify({ plan_generation_user: [{ error: { status: "teapot" } }] }))
    const scripted = await aeon("run", task, "--script", badScript)
    expect(scripted.code).toBe(1)
    expect(scripted.stderr).toContain(`script ${badScript}, responses for plan_generation_user: 0.error.status:`)
    expect(scripted.stderr.trim().split("\n")).toHaveLength(1) // one line, no schema dump
    const timeout = await aeon("run", task, "--approval-timeout", "soon")
    expect(timeout.code).toBe(1)
    expect(timeout.stderr).toContain("--approval-timeout: \"soon\" is not a duration")
    const missing = await aeon("inspect", "no-such-run")
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("run no-such-run does not exist")
  })

  it("help: every flag says what it does and names its environment variable; usage reads aeon …; no colour piped (#15.10)", async () => {
    const commands = ["run", "inspect", "runs", "approve", "guide", "serve"]
    const helps = new Map<string, string>()
    for (const command of commands) {
      const help = await aeon(command, "--help")
      helps.set(command, help.stdout)
      expect(help.code).toBe(0)
      expect(help.stdout).not.toContain("\u001b[")
      expect(help.stdout).toMatch(new RegExp(`^aeon ${command}( |$)`, "m"))
      expect(help.stdout).not.toMatch(/^\$ /m)
      expect(help.stdout).toMatch(/^DESCRIPTION$/m)
      // each argument and option: one line, its head (name and value) and what it does, no type boilerplate
      const entries = help.stdout.split("\n").filter((l) => /^ {2}(--|<|\(-)/.test(l))
      expect(entries.length).toBeGreaterThan(0)
      for (const entry of entries) {
        const [, head, said] = entry.match(/^ {2}(\S+(?: \S+)*?) {1,}(\S.*)$/) ?? []
        expect({ entry, said: (said ?? "").length > 8 }).toEqual({ entry, said: true })
        expect(head).toBeDefined()
      }
      expect(help.stdout).not.toMatch(/^\s*(This setting is optional\.|A floating point number\.)$/m)
    }
    const run = helps.get("run")!
    const described = (flag: string) => run.split("\n").find((l) => l.startsWith(`  --${flag} `)) ?? ""
    expect(described("provider")).toContain("AEON_MODEL_PROVIDER")
    expect(described("model")).toContain("AEON_MODEL")
    expect(described("base-url")).toContain("OPENAI_BASE_URL")
    expect(described("script")).toContain("AEON_SCRIPT")
    expect(described("approve-tools")).toContain("AEON_APPROVAL_TOOLS")
    expect(helps.get("serve")).toContain("AEON_PORT")
    expect(helps.get("serve")).toContain("AEON_RUNNER_PORT")
    // a cluster shares PostgreSQL: without it, a clear refusal before anything is opened
    const { AEON_DATABASE_URL: _url, ...noDatabase } = env
    const alone = await execWith(noDatabase, process.execPath, ["bin/aeon.mjs", "serve", "--cluster", "--port", "0"])
    expect(alone.code).toBe(1)
    expect(alone.stderr).toContain("AEON_CLUSTER=1 needs AEON_DATABASE_URL")
    expect((await aeon("--help")).stdout).toMatch(/^aeon$/m)
    const bad = await aeon("run", "--mode", "sideways", "x")
    expect(bad.stderr + bad.stdout).not.toContain("\u001b[")
  })

  it("without --json, a run that did not converge shows why: each failed step's error", async () => {
    const script = join(dir, "refusing.json")
    writeFileSync(
      script,
      JSON.stringify({
        reasoning_step_user: [{ error: { status: 400, message: "the model refused the prompt: context too long" } }],
        fallback: "offline"
      })
    )
    const r = await aeon("run", "Explain why the sky is blue", "--full", "--ttl", "1", "--script", script)
    expect(r.code).toBe(2)
    expect(r.stdout).toMatch(/^step s1 failed: .*the model refused the prompt: context too long$/m)
    const converged = await aeon("run", task, "--full")
    expect(converged.stdout).not.toMatch(/^step /m)
  })

  it("start-up failures end at once with one clear line and exit code 1", async () => {
    const proc = await execWith(
      { ...env, AEON_DATA_DIR: "/proc/aeon-test/data", AEON_DATABASE_URL: "" },
      process.execPath,
      [
        "bin/aeon.mjs",
        "runs"
      ]
    )
    expect(proc.code).toBe(1)
    expect(proc.stderr.trim()).toBe(
      "aeon: cannot create the data directory /proc/aeon-test/data (AEON_DATA_DIR): ENOENT"
    )
    const bogus = await execWith({ ...env, AEON_MODEL_PROVIDER: "bogus" }, process.execPath, [
      "bin/aeon.mjs",
      "run",
      task
    ])
    expect(bogus.code).toBe(1)
    expect(bogus.stderr.trim()).toBe(
      "aeon: AEON_MODEL_PROVIDER must be one of openai, anthropic, google, offline, scripted (got bogus)"
    )
  })

  it("OPENAI_BASE_URL and OPENAI_API_KEY choose the openai provider, as for every OpenAI-compatible tool", async () => {
    const r = await execWith(
      { ...env, OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "sk-test", AEON_MODEL: "local-model" },
      process.execPath,
      ["bin/aeon.mjs", "run", task, "--full", "--json"]
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("aeon: the run failed: cannot reach http://127.0.0.1:9/v1")
    expect(JSON.parse(r.stdout).model).toBe("openai:local-model")
  })

  it("refuses an embedded data directory another live process has open, and changes nothing in it", async () => {
    const busy = mkdtempSync(join(tmpdir(), "aeon-busy-"))
    const owner = lockHolder(busy)
    try {
      expect(await owner.outcome).toBe("held")
      const r = await execWith({ ...env, AEON_DATA_DIR: busy, AEON_DATABASE_URL: "" }, process.execPath, [
        "bin/aeon.mjs",
        "runs"
      ])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`in use by process ${owner.child.pid}`)
      // no database files were created beside the owner's lock
      expect(readdirSync(busy).sort()).toEqual(["aeon.lock", "aeon.pid"])
    } finally {
      owner.child.kill("SIGKILL")
    }
  })

  it("a call waiting for approval off a terminal: exit 3 and how to answer; aeon approve; run --resume finishes it", async () => {
    const script = seedScriptFile(join(dir, "approval.json"), { convergence_assessment_user: [verdict(true)] })
    const first = await seeding(script)
    expect(first.code, first.stderr).toBe(3)
    const [, runId, requestId] = first.stdout.match(/aeon approve (\S+) (\S+)/) ?? []
    expect(first.stdout).toContain("memory.write {\"key\":\"seed\",\"value\":7}")
    expect((await aeon("runs", "--status", "AWAITING_INPUT", "--json")).stdout).toContain(runId!)
    expect((await aeon("runs", "--status", "RUNNING", "--json")).stdout).not.toContain(runId!)

    const bad = await aeon("approve", runId!, requestId!, "--input", "{\"key\": 7}")
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("the edited input does not fit memory.write")
    const ok = await aeon("approve", runId!, requestId!, "--input", "{\"key\": \"seed\", \"value\": 8}")
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toMatch(/^approved the call of memory.write \(step s\d+\) with your input \(/)
    expect((await aeon("approve", runId!, requestId!)).stderr).toContain("already answered (EDIT)")

    const resumed = await aeon("run", "--resume", runId!, "--script", script, "--json")
    expect(resumed.code, resumed.stderr).toBe(0)
    const inspected = JSON.parse((await aeon("inspect", runId!, "--json")).stdout)
    expect(inspected.status).toBe("CONVERGED")
    const events = JSON.stringify(inspected)
    expect(events).toContain("\"value\":8")
  })

  it("--json while a call waits for approval: the run as JSON (AWAITING_INPUT, its requests and their commands), exit 3", async () => {
    const script = seedScriptFile(join(dir, "approval-json.json"), { convergence_assessment_user: [verdict(true)] })
    const r = await seeding(script, "--json")
    expect(r.code, r.stderr).toBe(3)
    const waiting = JSON.parse(r.stdout)
    expect(waiting.status).toBe("AWAITING_INPUT")
    const [request] = waiting.pendingRequests
    expect(request).toMatchObject({ kind: "APPROVAL", tool: "memory.write", input: { key: "seed", value: 7 } })
    expect(request.answer).toBe(
      `aeon approve ${waiting.runId} ${request.requestId}   [--reject --reason "…"] [--input '<JSON>']`
    )
    expect(request.then).toBe(`aeon run --resume ${waiting.runId}`)
    // the command it gives answers it
    expect((await aeon("approve", waiting.runId, request.requestId)).code).toBe(0)
    const resumed = await aeon("run", "--resume", waiting.runId, "--script", script, "--json")
    expect(JSON.parse(resumed.stdout).status).toBe("CONVERGED")
  })

  it("--interactive off a terminal: a request for guidance exits 3; aeon guide answers it; --resume goes on", async () => {
    const script = join(dir, "guidance.json")
    writeFileSync(
      script,
      JSON.stringify({
        fallback: "offline",
        ...refiningForever("s2"),
        plan_generation_user: [planOut([
          { id: "s1", d: "Compute 6 * 7", tool: "calculator", input: { expression: "6 * 7" } },
          { id: "s2", d: "Explain the product", deps: ["s1"] }
        ])]
      })
    )
    const first = await aeon(
      "run",
      "Compute 6 * 7 and explain it",
      "--full",
      "--interactive",
      "--ttl",
      "6",
      "--script",
      script
    )
    expect(first.code, first.stderr).toBe(3)
    const [, runId, requestId] = first.stdout.match(/aeon guide (\S+) (\S+)/) ?? []
    expect(first.stdout).toContain("asks for your guidance")
    const given = await aeon("guide", runId!, requestId!, "explain it in one sentence")
    expect(given.code, given.stderr).toBe(0)
    expect((await aeon("guide", runId!, requestId!, "again")).stderr).toContain("already answered")
    const resumed = await aeon("run", "--resume", runId!, "--script", script, "--json")
    expect(resumed.code).toBe(2) // NOT_CONVERGED: this model never converges
    expect(JSON.parse(resumed.stdout).status).toBe("NOT_CONVERGED")
  })

  it("on a terminal, a call waiting for approval is asked inline: edit it, and the run goes on with the new input", async () => {
    const script = seedScriptFile(join(dir, "approval-tty.json"))
    const { code, out } = await onTerminal(
      env,
      `run 'Seed the memory' --full --script ${script} --approve-tools memory.write`,
      "[y]es / [n]o / [e]dit",
      "maybe\ne\n{\"key\": \"seed\", \"value\": 9}\n"
    )
    expect(out).toContain("Approve memory.write {\"key\":\"seed\",\"value\":7} (step s1: Store 7 under seed)?")
    expect(out).toContain("answer y, n or e") // a bad answer is said, and asked again
    expect(out).toContain("\"found\":true,\"value\":9")
    expect(code).toBe(0)
  })

  it("--approval-timeout: a request nobody answered in time is rejected when the run goes on", async () => {
    const script = seedScriptFile(join(dir, "approval-timeout.json"))
    const first = await seeding(script, "--approval-timeout", "50ms", "--pause-deadline")
    const firstEnded = Date.now()
    expect(first.code, first.stderr).toBe(3)
    const [, runId] = first.stdout.match(/aeon approve (\S+) (\S+)/) ?? []
    // the request was asked before the first process ended: its 50 ms have passed once 50 ms have since then
    const expired = firstEnded + 50
    while (Date.now() < expired) await new Promise((r) => setTimeout(r, expired - Date.now()))
    const resumed = await aeon("run", "--resume", runId!, "--script", script, "--json")
    expect(resumed.code).not.toBe(3) // not waiting any more
    expect(resumed.stdout).toContain("the call was rejected: not answered within 50 ms")
  })
})
