import { describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"

const { aeon } = cliIn("aeon-fork-cli-")

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
    // a plan edit at the plan pass's end: the removed step does not run in the fork
    const listed = (await aeon("inspect", source.runId, "--events")).stdout
    expect(listed).toMatch(/^\s+1 {2}RunStarted/m)
    const events: Array<any> = JSON.parse((await aeon("inspect", source.runId, "--events", "--json")).stdout)
    expect(listed).toContain(`${events.find((e) => e._tag === "PassFinished").seq}  PassFinished  (pass `)
    const planEnd = events.find((e) => e._tag === "PassFinished").seq
    const last = events.find((e) => e._tag === "PlanCreated").plan.steps.at(-1).stepId
    const edited = await aeon(
      "fork",
      source.runId,
      "--at",
      String(planEnd),
      "--edit",
      JSON.stringify({ actionType: "REMOVE", targetStepId: last }),
      "--json"
    )
    expect(edited.code).toBe(0)
    const editedRun = JSON.parse(edited.stdout)
    const ran = editedRun.passes.flatMap((p: any) => Object.keys(p.executionResults))
    expect(ran.length).toBeGreaterThan(0)
    expect(ran).not.toContain(last)
    const notJson = await aeon("fork", source.runId, "--at", String(planEnd), "--edit", "{nope")
    expect(notJson.code).not.toBe(0)
    expect(notJson.stderr).toContain("--edit 1 is not JSON")

    const bad = await aeon("fork", source.runId, "--at", "999")
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("atSeq must be an event of run")
  })
})
