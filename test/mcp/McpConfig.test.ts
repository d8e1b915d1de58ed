import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as McpConfig from "../../src/mcp/McpConfig.js"

const dir = mkdtempSync(join(tmpdir(), "aeon-mcp-config-"))

describe("the MCP configuration file (Claude Desktop's mcpServers format)", () => {
  it.effect("reads stdio and URL servers; ${VAR} comes from the environment; a relative cwd is the file's", () =>
    Effect.gen(function*() {
      const file = join(dir, "ok.json")
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            fs: { command: "npx", args: ["-y", "server", "${HOME_DIR}"], cwd: "work", env: { TOKEN: "${TOKEN}" } },
            remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
            off: { command: "nothing", disabled: true }
          }
        })
      )
      const config = yield* McpConfig.load(file, { HOME_DIR: "/home/me", TOKEN: "t0k" })
      expect(config.mcpServers).toEqual({
        fs: { command: "npx", args: ["-y", "server", "/home/me"], cwd: join(dir, "work"), env: { TOKEN: "t0k" } },
        remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer t0k" } }
      })
    }))

  it.effect("a variable that is not set, a bad entry, a bad name: an error that says which", () =>
    Effect.gen(function*() {
      const decode = (raw: unknown) => Effect.either(McpConfig.decode(raw, { env: {} }))
      const missing = yield* decode({ mcpServers: { r: { url: "https://x/mcp", headers: { A: "${GITHUB_TOKEN}" } } } })
      expect(Either.isLeft(missing) && missing.left.message).toBe(
        "environment variable GITHUB_TOKEN (used at mcpServers.r.headers.A) is not set"
      )
      const neither = yield* decode({ mcpServers: { x: { args: [] } } })
      expect(Either.isLeft(neither) && neither.left.message).toBe(
        "MCP configuration: mcpServers.x: a server needs a command (started over stdio) or a url (Streamable HTTP or SSE)"
      )
      const badField = yield* decode({ mcpServers: { x: { command: "run", args: "not a list" } } })
      expect(Either.isLeft(badField) && badField.left.message).toMatch(/^MCP configuration: mcpServers\.x\.args: /)
      expect(Either.isLeft(badField) && badField.left.message).not.toMatch(/readonly|Struct/)
      const badName = yield* decode({ mcpServers: { "a.b": { command: "x" } } })
      expect(Either.isLeft(badName) && badName.left.message).toMatch(/letters, digits, _ and - only/)
    }))

  it("the CLI refuses a file whose variable is not set, naming it, with exit 1", () => {
    const file = join(dir, "missing.json")
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { r: { url: "https://x/mcp", headers: { A: "${NOT_SET_ANYWHERE}" } } } })
    )
    const env = { ...process.env }
    delete env.NOT_SET_ANYWHERE
    const r = spawnSync(process.execPath, ["bin/aeon.mjs", "tools", "--mcp", file], { encoding: "utf8", env })
    expect(r.status).toBe(1)
    expect(r.stderr.trim()).toBe(
      "aeon: environment variable NOT_SET_ANYWHERE (used at mcpServers.r.headers.A) is not set"
    )
    expect(execFileSync(process.execPath, ["bin/aeon.mjs", "tools"], { encoding: "utf8" })).toContain("calculator")
  })
})
