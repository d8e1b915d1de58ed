import { execFile } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cliIn, onTerminal } from "../support/cli.js"
import { seedScriptFile, verdict } from "../support/scripts.js"

const { aeon, dir, env } = cliIn("aeon-plan-cli-")

const inspectJson = async (runId: string) => JSON.parse((await aeon("inspect", runId, "--json")).stdout)
/** The steps the stored run started, from its events (`aeon inspect --events --json`). */
const stepsStarted = async (runId: string): Promise<Array<string>> =>
  JSON.parse((await aeon("inspect", runId, "--events", "--json")).stdout).flatMap((e: any) =>
    e._tag === "StepStarted" ? [e.stepId] : []
  )

describe("aeon run --dry-run and --approve-plan (#35)", () => {
  it("--dry-run on the offline model: the plan and its forecast, nothing executed, exit 0; --json gives { plan, forecast, usage }", async () => {
    const text = await aeon("run", "What is 6 * 7?", "--dry-run")
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/plan: .*\(\d+ steps?\)/)
    expect(text.stdout).toMatch(/expected: +\d+ LLM calls/)
    expect(text.stdout).toMatch(/worst case: +\d+ LLM calls/)
    expect(text.stdout).toContain("dry run: planned, nothing executed")

    const json = await aeon("run", "What is 6 * 7?", "--dry-run", "--json")
    expect(json.code, json.stderr).toBe(0)
    const out = JSON.parse(json.stdout)
    expect(Object.keys(out).sort()).toEqual(["forecast", "plan", "runId", "usage"])
    expect(out.plan.steps.length).toBeGreaterThan(0)
    expect(out.forecast.perStep.map((s: any) => s.stepId)).toEqual(out.plan.steps.map((s: any) => s.stepId))
    // only the planning was paid: what the run used is what the forecast counts as spent before execution
    expect(out.usage.llmCalls).toBe(out.forecast.spent.llmCalls)
    expect(out.forecast.expected.llmCalls).toBeGreaterThan(out.usage.llmCalls)
    expect(await stepsStarted(out.runId)).toEqual([])
  })

  it("--approve-plan off a terminal: exit 3 with the plan and forecast; a refused edit says why; an edit removing a step; --resume runs without it", async () => {
    const script = seedScriptFile(join(dir, "plan.json"), { convergence_assessment_user: [verdict(true)] })
    const first = await aeon("run", "Seed the memory", "--full", "--script", script, "--approve-plan")
    expect(first.code, first.stderr).toBe(3)
    expect(first.stdout).toContain("waits for your approval of its plan")
    expect(first.stdout).toContain("s2  Read seed")
    expect(first.stdout).toMatch(/worst case: +\d+ LLM calls/)
    const [, runId, requestId] = first.stdout.match(/aeon approve (\S+) (\S+)/) ?? []

    const bad = await aeon("approve", runId!, requestId!, "--input", `[{"actionType":"REMOVE","targetStepId":"s7"}]`)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("s7")
    const ok = await aeon("approve", runId!, requestId!, "--input", `[{"actionType":"REMOVE","targetStepId":"s2"}]`)
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toMatch(/^approved the plan with your edits \(/)

    const resumed = await aeon("run", "--resume", runId!, "--script", script, "--json")
    expect(resumed.code, resumed.stderr).toBe(0)
    const inspected = await inspectJson(runId!)
    expect(inspected.status).toBe("CONVERGED")
    expect(await stepsStarted(runId!)).toEqual(["s1"])
  })

  it("--approve-plan --json off a terminal: the plan request as JSON (kind PLAN, plan, forecast), exit 3; --reject ends it cancelled", async () => {
    const script = seedScriptFile(join(dir, "plan-json.json"))
    const r = await aeon("run", "Seed the memory", "--full", "--script", script, "--approve-plan", "--json")
    expect(r.code, r.stderr).toBe(3)
    const waiting = JSON.parse(r.stdout)
    const [request] = waiting.pendingRequests
    expect(request).toMatchObject({ kind: "PLAN", plan: { goal: "Seed the memory" } })
    expect(request.forecast.worstCase.llmCalls).toBeGreaterThan(0)
    expect((await aeon("approve", waiting.runId, request.requestId, "--reject", "--reason", "no")).code).toBe(0)
    const resumed = await aeon("run", "--resume", waiting.runId, "--script", script, "--json")
    expect(JSON.parse(resumed.stdout).status).toBe("CANCELLED")
    expect(resumed.code).toBe(2)
  })

  it("on a terminal, the plan is asked inline with its forecast; approved, the run goes on", async () => {
    const script = seedScriptFile(join(dir, "plan-tty.json"), { convergence_assessment_user: [verdict(true)] })
    const { code, out } = await onTerminal(
      env,
      `run 'Seed the memory' --full --script ${script} --approve-plan`,
      "Run this plan? [y]es / [n]o / [e]dit",
      "y\n"
    )
    expect(out).toMatch(/expected: +\d+ LLM calls/)
    expect(out).toContain("s1  Store 7 under seed")
    expect(out).toContain("converged")
    expect(code).toBe(0)
  })

  it("--interactive with a call cap too small: exit 3 asking for more; aeon approve with caps (refused below the cap); --resume converges", async () => {
    const script = seedScriptFile(join(dir, "budget.json"), { convergence_assessment_user: [verdict(true)] })
    const first = await aeon(
      "run",
      "Seed the memory",
      "--full",
      "--script",
      script,
      "--interactive",
      "--max-llm-calls",
      "4",
      // the data directory holds converged runs of this task: plan afresh, as the call cap needs
      "--no-reuse"
    )
    expect(first.code, first.stderr).toBe(3)
    expect(first.stdout).toContain("has used 4 of its 4 llmCalls and asks for more")
    const [, runId, requestId] = first.stdout.match(/aeon approve (\S+) (\S+)/) ?? []
    expect(requestId).toBe("budget-llmCalls-1")
    const low = await aeon("approve", runId!, requestId!, "--input", `{"maxLlmCalls": 3}`)
    expect(low.code).toBe(1)
    expect(low.stderr).toContain("maxLlmCalls must be above 4")
    const ok = await aeon("approve", runId!, requestId!, "--input", `{"maxLlmCalls": 60}`)
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toMatch(/^raised the call budget to 60 \(budget-llmCalls-1 of run /)
    const resumed = await aeon("run", "--resume", runId!, "--script", script, "--json")
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(JSON.parse(resumed.stdout).usage.llmCalls).toBeGreaterThan(4)
  })
})

describe("more passes asked off a terminal (#35: the guard would refuse a pass)", () => {
  it("--interactive --ttl 1, the pass not converged: exit 3 asking for passes; aeon approve with ttl; --resume refines and converges on pass 2", async () => {
    const script = seedScriptFile(join(dir, "passes.json"), {
      convergence_assessment_user: [verdict(false), verdict(true)],
      recursive_refinement_user: [{
        output: {
          actions: [{
            actionType: "MODIFY",
            targetStepId: "s2",
            newStep: { stepId: "s2", description: "Read seed again", dependencies: ["s1"] },
            justification: "read it once more"
          }]
        }
      }]
    })
    const first = await aeon(
      "run",
      "Seed the memory",
      "--full",
      "--script",
      script,
      "--interactive",
      "--ttl",
      "1",
      "--no-reuse"
    )
    expect(first.code, first.stderr).toBe(3)
    expect(first.stdout).toContain("has made the 1 pass its TTL allowed without converging and asks for more")
    const [, runId, requestId] = first.stdout.match(/aeon approve (\S+) (\S+)/) ?? []
    expect(requestId).toBe("budget-ttl-pass-1")
    const low = await aeon("approve", runId!, requestId!, "--input", `{"ttl": 1}`)
    expect(low.code).toBe(1)
    expect(low.stderr).toContain("ttl must be above 1")
    const ok = await aeon("approve", runId!, requestId!, "--input", `{"ttl": 2}`)
    expect(ok.code, ok.stderr).toBe(0)
    const resumed = await aeon("run", "--resume", runId!, "--script", script, "--json")
    expect(resumed.code, resumed.stderr).toBe(0)
    const out = JSON.parse(resumed.stdout)
    expect(out.status).toBe("CONVERGED")
    // pass 1 executed, then pass 2 re-executed the refined step
    expect(out.passes.filter((p: any) => p.phases.includes("RE_EXECUTE"))).toHaveLength(1)
  })
})

describe("a budget extension asked on a terminal (#35)", () => {
  it("--interactive at the call cap on a terminal: asked inline with the proposal; edited caps let it converge", async () => {
    const script = seedScriptFile(join(dir, "budget-tty.json"), { convergence_assessment_user: [verdict(true)] })
    const { code, out } = await onTerminal(
      env,
      `run 'Seed the memory' --full --script ${script} --interactive --max-llm-calls 4 --no-reuse`,
      "[y]es / [n]o / [e]dit",
      "e\n{\"maxLlmCalls\": 40}\n"
    )
    expect(out).toContain("has used 4 of its 4 llmCalls and asks for more")
    expect(out).toContain("Give it {\"maxLlmCalls\":8}?")
    expect(out).toContain("converged")
    expect(code).toBe(0)
  })
})

describe("aeon quota and AEON_QUOTAS (#35)", () => {
  const run = (quotas: string, ...args: Array<string>) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ["bin/aeon.mjs", ...args],
        { env: { ...env, AEON_QUOTAS: quotas }, encoding: "utf8", timeout: 120_000 },
        (e, stdout, stderr) => resolve({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stdout, stderr })
      )
    )

  it("a run past the user's runs per day is refused with what is left and when it resets; aeon quota shows used and left", async () => {
    const quotas = "quinn:runs=1/day,cost=2/day"
    expect((await run(quotas, "run", "Compute 6 * 7", "--user", "quinn")).code).toBe(0)
    const refused = await run(quotas, "run", "Compute 6 * 7", "--user", "quinn")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /^aeon: the run is refused: quinn has 0 runs of 1 runs per day left \(resets 20\d\d-/
    )
    const shown = JSON.parse((await run(quotas, "quota", "--user", "quinn", "--json")).stdout)
    expect(shown).toMatchObject([
      { metric: "runs", period: "day", amount: 1, used: 1, left: 0 },
      { metric: "cost", period: "day", amount: 2, used: 0, left: 2 } // the offline model costs nothing
    ])
    expect((await run(quotas, "quota", "--user", "quinn")).stdout).toContain("runs per day: quinn has 0 runs of 1 runs")
    expect((await run("", "quota")).stdout).toContain("no quota applies")
  })

  it("a malformed AEON_QUOTAS stops the command with one line naming it", async () => {
    const r = await run("quinn:runs=many/day", "quota")
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/AEON_QUOTAS/)
    expect(r.stderr).toMatch(/runs=many\/day/)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
  })
})
