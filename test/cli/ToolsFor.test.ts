import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"

/** `aeon tools --for "TASK"` (#58 item 4): what a task's plan prompt would be offered, through the built command. */
const server = fileURLToPath(new URL("../support/mcp-servers/catalog.mjs", import.meta.url))

describe("aeon tools --for TASK", () => {
  it(
    "prints the entries a task is offered: every tool within the bound, the ranked and named past it, none when none is needed",
    async () => {
      const c = cliIn("aeon-tools-for-")
      const own = await c.aeon("tools", "--for", "Compute 6 * 7")
      expect(own.code).toBe(0)
      expect(own.stdout).toMatch(/^all 6 tools/)
      expect(own.stdout).toContain("calculator(expression: string) — Evaluates an arithmetic expression")
      const none = await c.aeon("tools", "--for", "What is the capital of France?")
      expect(none.stdout).toMatch(/^no tool: the task is planned without the catalog/)

      const config = join(c.dir, "mcp.json")
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { catalog: { command: process.execPath, args: [server], env: { CATALOG_SIZE: "400" } } }
        })
      )
      const large = await c.aeon("tools", "--mcp", config, "--for", "Get the weather forecast for Lisbon", "--json")
      const offer = JSON.parse(large.stdout)
      expect(offer).toMatchObject({ total: 406, selected: true, noTool: false })
      expect(offer.tools.map((t: { name: string }) => t.name)).toContain("catalog.weather_forecast")
      expect(offer.tools.length).toBeLessThanOrEqual(10)
    },
    60_000
  )
})
