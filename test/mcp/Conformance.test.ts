import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/server.js"

const require = createRequire(import.meta.url)
const run = promisify(execFile)
/** The official suite needs Node 22 or later: it runs in CI's Node 24 pass (.ci/run) and is skipped on Node 20. */
const supported = Number(process.versions.node.split(".")[0]) >= 22

describe.skipIf(!supported)("the MCP conformance suite against /mcp", () => {
  let server: TestServer & { db: any }
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server?.stop())

  for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
    it(`passes ${scenario}`, async () => {
      // the suite's DNS-rebinding scenario needs a localhost URL
      const url = server.url.replace("127.0.0.1", "localhost").replace(/\/graphql$/, "/mcp")
      const cli = require.resolve("@modelcontextprotocol/conformance/dist/index.js")
      const { stdout } = await run(process.execPath, [cli, "server", "--url", url, "--scenario", scenario], {
        cwd: mkdtempSync(join(tmpdir(), "aeon-conformance-")), // it writes its results/ there
        timeout: 60_000
      })
      expect(stdout).toMatch(/Passed: (\d+)\/\1, 0 failed/)
    })
  }
})
