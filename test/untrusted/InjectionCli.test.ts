import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"
import { PAY_FROM_INBOX, workspaceServer } from "../support/obedient.js"

/**
 * Untrusted data through the CLI (#70): a real MCP workspace server, a scripted plan that pays whatever the inbox
 * says. `aeon run --json` stops on the held call with its reason (pendingRequests); `aeon replay RUN --policy FILE`
 * says, from the log alone, which calls another policy would hold; `--tool-outputs trusted` is the opt-out.
 */
const PLAN = {
  fallback: "offline",
  plan_generation_user: [{
    output: {
      goal: "Pay the invoice",
      steps: PAY_FROM_INBOX
    }
  }]
}

const setUp = () => {
  const c = cliIn("aeon-untrusted-")
  const file = (name: string, value: unknown) => {
    const path = join(c.dir, name)
    writeFileSync(path, JSON.stringify(value))
    return path
  }
  const log = join(c.dir, "side-effects.jsonl")
  const mcp = file("mcp.json", {
    mcpServers: {
      workspace: workspaceServer({ WORKSPACE_LOG: log })
    }
  })
  const paid = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "").length : 0)
  const args = ["Pay the invoice in Bob's email", "--mode", "full", "--no-memory", "--mcp", mcp, "--script"]
  return { ...c, file, paid, args: (...more: Array<string>) => ["run", ...args, file("plan.json", PLAN), ...more] }
}

describe("untrusted data from the CLI", () => {
  it(
    "a held call: --json says why and from which steps; replay --policy says what another policy would do",
    async () => {
      const c = setUp()
      const ran = await c.aeon(...c.args("--json"))
      expect(ran.code).toBe(3)
      const out = JSON.parse(ran.stdout)
      expect(out.status).toBe("AWAITING_INPUT")
      expect(out.pendingRequests).toEqual([expect.objectContaining({
        kind: "APPROVAL",
        tool: "workspace.bank_send_money",
        untrustedSources: ["s1"],
        reason: expect.stringMatching(/^untrusted input: an argument of step s2 comes from s1/)
      })])
      expect(c.paid()).toBe(0)
      const open = c.file("open.json", { allow: { "workspace.bank_send_money": { recipient: { any: true } } } })
      const lenient = await c.aeon("replay", out.runId, "--policy", open, "--json")
      expect(lenient.code).toBe(0)
      expect(JSON.parse(lenient.stdout).calls).toEqual([
        expect.objectContaining({ stepId: "s2", tool: "workspace.bank_send_money", held: true, wouldHold: false })
      ])
      const strict = await c.aeon("replay", out.runId, "--policy", c.file("none.json", { allow: {} }))
      expect(strict.code).toBe(1)
      expect(strict.stdout).toMatch(
        /step s2 workspace\.bank_send_money .*: held; under .*none\.json: held \(untrusted input/
      )
      expect(c.paid()).toBe(0)
    },
    60_000
  )

  it("--tool-outputs trusted: the call runs as it did before", async () => {
    const c = setUp()
    const ran = await c.aeon(...c.args("--tool-outputs", "trusted", "--json"))
    expect(ran.code).not.toBe(3)
    expect(c.paid()).toBe(1)
  }, 60_000)
})
