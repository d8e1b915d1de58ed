import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * What a library user installs (#76 item 8): the packages `npm install --dry-run` would add to a new project for the
 * README's library line (this checkout packed: aeon-engine with effect), beside the peers' library lines, counted
 * the same way in the same run (the registry's current versions; nothing is installed).
 */
const sh = (args: Array<string>, cwd: string) =>
  new Promise<string>((done, fail) =>
    execFile(
      "npm",
      args,
      { cwd, encoding: "utf8", maxBuffer: 64 << 20, timeout: 300_000 },
      (e, stdout, stderr) => e ? fail(new Error(stderr || e.message)) : done(stdout)
    )
  )

const added = async (packages: ReadonlyArray<string>) => {
  const project = mkdtempSync(join(tmpdir(), "aeon-install-size-"))
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }))
  const out = await sh(["install", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund", ...packages], project)
  return Number(/added (\d+) package/.exec(out)?.[1] ?? Number.NaN)
}

export const installSizes = async (root: string) => {
  const packDir = mkdtempSync(join(tmpdir(), "aeon-install-pack-"))
  await sh(["pack", "--pack-destination", packDir], root)
  const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith(".tgz"))!)
  return {
    aeon: await added([tarball, "effect@^3"]),
    ai: await added(["ai@^6"]),
    langgraph: await added(["@langchain/langgraph@^1", "@langchain/core@^1"]),
    openaiAgents: await added(["@openai/agents", "zod@^4"])
  }
}
