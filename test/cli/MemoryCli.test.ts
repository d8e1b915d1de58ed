import { describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"

const { aeon } = cliIn("aeon-memory-cli-")
const runId = (stdout: string) => JSON.parse(stdout).runId as string

describe("aeon memory (#44)", () => {
  it("a converged run is remembered: listed, searched, reused by the same task (inspect says so), forgotten", async () => {
    const first = await aeon("run", "Compute 17 + 25", "--user", "ann", "--json")
    expect(first.code, first.stderr).toBe(0)
    const firstId = runId(first.stdout)
    const list = await aeon("memory", "list", "--user", "ann")
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toContain(`answer of run ${firstId}`)
    expect(list.stdout).toContain("42")
    const search = await aeon("memory", "search", "compute 17 25", "--user", "ann", "--json")
    const found = JSON.parse(search.stdout)
    expect(found.find((m: any) => m.kind === "answer")).toMatchObject({ runId: firstId, coverage: 1 })
    // someone else's list is theirs
    expect((await aeon("memory", "list", "--user", "bob")).stdout).toContain("no memories")

    const again = await aeon("run", "Compute 17 + 25", "--user", "ann", "--json")
    const againId = runId(again.stdout)
    expect(JSON.parse(again.stdout).usage.llmCalls).toBe(0)
    expect((await aeon("inspect", againId)).stdout).toContain(`plan reused from run ${firstId} (equal task`)
    const noReuse = await aeon("run", "Compute 17 + 25", "--user", "ann", "--no-reuse", "--json")
    expect(JSON.parse(noReuse.stdout).usage.llmCalls).toBeGreaterThan(0)

    const missing = await aeon("memory", "forget", "nope", "--user", "ann")
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("no memory nope of user ann")
    const both = await aeon("memory", "forget", "x", "--all")
    expect(both.code).toBe(1)
    const forgot = await aeon("memory", "forget", "--all", "--user", "ann")
    expect(forgot.code, forgot.stderr).toBe(0)
    expect(forgot.stdout).toMatch(/^forgot \d+ memories/)
    expect((await aeon("memory", "list", "--user", "ann")).stdout).toContain("no memories")
  })

  it("--no-memory: nothing recalled, nothing kept", async () => {
    const r = await aeon("run", "Compute 2 + 2", "--user", "cy", "--no-memory", "--json")
    expect(r.code, r.stderr).toBe(0)
    expect((await aeon("memory", "list", "--user", "cy")).stdout).toContain("no memories")
  })
})
