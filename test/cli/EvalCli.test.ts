import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"

const { aeon, dir } = cliIn("aeon-eval-cli-")

/** Well-formed XML, checked by hand: every element closed in order, one root, attributes quoted (no parser installed). */
const wellFormed = (xml: string) => {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, "")
  const stack: Array<string> = []
  let roots = 0
  for (const m of body.matchAll(/<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g)) {
    const [, closing, name, , selfClosing] = m
    if (closing) {
      if (stack.pop() !== name) return false
    } else {
      if (stack.length === 0) roots++
      if (!selfClosing) stack.push(name!)
    }
  }
  const stripped = body.replace(/<[^>]*>/g, "")
  return stack.length === 0 && roots === 1 && !/[<>]/.test(stripped)
}

describe("aeon eval (#34 item 3)", () => {
  it(
    "runs the shipped set offline: a table, every case passing; --json, --junit, --replay from the recordings",
    async () => {
      const table = await aeon("eval", "examples/evals/arith.jsonl")
      expect(table.code).toBe(0)
      expect(table.stdout).toMatch(/^CASE\s+STATUS\s+RESULT\s+PASSES\s+CALLS\s+TOKENS\s+COST\s+WALL/)
      expect(table.stdout).toContain("5/5 passed (100 %)")
      const report = join(dir, "report.json")
      const junit = join(dir, "report.xml")
      const first = await aeon("eval", "examples/evals/arith.jsonl", "--json", "--junit", junit)
      writeFileSync(report, first.stdout)
      const parsed = JSON.parse(first.stdout)
      expect(parsed.totals).toMatchObject({ cases: 5, passed: 5, passRate: 1 })
      const xml = readFileSync(junit, "utf8")
      expect(wellFormed(xml)).toBe(true)
      expect([...xml.matchAll(/<testcase /g)].length).toBe(5)
      expect(xml).toContain(`<testsuite name="${parsed.evalId}" tests="5" failures="0"`)
      // again from the first eval's recordings: the same results, every call replayed
      const replayed = JSON.parse(
        (await aeon("eval", "examples/evals/arith.jsonl", "--json", "--replay", report)).stdout
      )
      expect(replayed.cases.map((c: any) => [c.id, c.status, c.passed])).toEqual(
        parsed.cases.map((c: any) => [c.id, c.status, c.passed])
      )
      for (const c of replayed.cases) expect(c.replayedCalls).toBe(c.llmCalls)
    },
    120_000
  )

  it(
    "against a baseline: a case that passed and fails now is a regression (exit 1); the JUnit file says why",
    async () => {
      const cases = readFileSync("examples/evals/arith.jsonl", "utf8")
      const report = join(dir, "baseline.json")
      writeFileSync(report, (await aeon("eval", "examples/evals/arith.jsonl", "--json")).stdout)
      // the same set, one expectation changed: "product" now fails
      const changed = join(dir, "changed.jsonl")
      writeFileSync(changed, cases.replace("\\\\b42\\\\b", "\\\\b43\\\\b"))
      const junit = join(dir, "changed.xml")
      const r = await aeon("eval", changed, "--baseline", report, "--junit", junit)
      expect(r.code).toBe(1)
      expect(r.stdout).toMatch(/product\s+CONVERGED\s+FAIL: the answer does not match \/\\b43\\b\/ \(regression\)/)
      expect(r.stdout).toContain("against the baseline: 1 regression(s) product")
      const xml = readFileSync(junit, "utf8")
      expect(wellFormed(xml)).toBe(true)
      expect(xml).toMatch(/<testcase [^>]*name="product"[^>]*>\s*<failure message="the answer does not match/)
    },
    120_000
  )

  it("a bad file is refused before anything runs, naming the line", async () => {
    const bad = join(dir, "bad.jsonl")
    writeFileSync(
      bad,
      `{"id": "a", "task": "Compute 1 + 1"}\n{"id": "b", "task": "x", "budget": {"ttl": -1}}\n{"id": "c"}\n`
    )
    const r = await aeon("eval", bad)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("line 3: task")
    const runs = await aeon("runs", "--json")
    expect(JSON.parse(runs.stdout).some((run: any) => run.task === "Compute 1 + 1")).toBe(false)
    writeFileSync(bad, `{"id": "a", "task": "Compute 1 + 1"}\n{"id": "b", "task": "x", "budget": {"ttl": -1}}\n`)
    const budget = await aeon("eval", bad)
    expect(budget.stderr).toContain("case b: budget.ttl")
  }, 60_000)

  it("aeon export RUN --as-case: a recorded run becomes a case that replays from its recordings", async () => {
    const run = JSON.parse((await aeon("run", "--mode", "full", "Compute 9 * 9", "--json")).stdout)
    const caseFile = join(dir, "exported.jsonl")
    const report = join(dir, "exported.json")
    const exported = await aeon("export", run.runId, "--as-case", "--out", caseFile, "--report", report)
    expect(exported.code).toBe(0)
    const line = JSON.parse(readFileSync(caseFile, "utf8"))
    expect(line).toMatchObject({
      id: `run-${run.runId.slice(0, 8)}`,
      task: "Compute 9 * 9",
      mode: "FULL",
      expect: { status: "CONVERGED" }
    })
    const replayed = JSON.parse((await aeon("eval", caseFile, "--replay", report, "--json")).stdout)
    expect(replayed.cases[0]).toMatchObject({ id: line.id, status: run.status, passed: true })
    expect(replayed.cases[0].replayedCalls).toBe(replayed.cases[0].llmCalls)
    expect((await aeon("export", run.runId)).stderr).toContain("--as-case")
  }, 60_000)
})
