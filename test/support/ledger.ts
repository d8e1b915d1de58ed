import { existsSync, mkdtempSync, readFileSync, realpathSync, watch, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { verdict } from "./scripts.js"

/**
 * Three steps, each calling the ledger MCP server's `append` (a side effect: the record written at once, the answer
 * held `holdMs`), in a directory of its own: the ledger file, the mcp.json naming the server, the scripted model's
 * plan (records a, b and c), and the records written so far.
 */
export const threeLedgerCalls = (prefix: string, holdMs: number) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  const ledger = join(dir, "ledger.txt")
  const config = join(dir, "mcp.json")
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        ledger: {
          command: process.execPath,
          args: [fileURLToPath(new URL("./mcp-servers/ledger.mjs", import.meta.url))],
          env: { LEDGER_FILE: ledger, LEDGER_HOLD_MS: String(holdMs) }
        }
      }
    })
  )
  const script = join(dir, "three.json")
  const step = (id: string) => ({
    stepId: id,
    description: `Append the record ${id} to the ledger`,
    tool: "ledger.append",
    toolInput: { record: id }
  })
  writeFileSync(
    script,
    JSON.stringify({
      fallback: "offline",
      plan_generation_user: [{ output: { goal: "Append three records", steps: [step("a"), step("b"), step("c")] } }],
      convergence_assessment_user: [verdict(true)]
    })
  )
  const lines = () => (existsSync(ledger) ? readFileSync(ledger, "utf8").split("\n").filter((l) => l !== "") : [])
  /** The records once there are `count` of them: looked at again on each change to the directory, not on a timer. */
  const untilRecords = (count: number) =>
    new Promise<Array<string>>((resolve) => {
      const look = () => {
        const now = lines()
        if (now.length < count) return
        watcher.close()
        resolve(now)
      }
      const watcher = watch(dir, look)
      look()
    })
  return { dir, ledger, config, script, lines, untilRecords }
}
