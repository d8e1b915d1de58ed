import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const sh = (file: string, args: Array<string>, cwd: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(file, args, {
      cwd,
      encoding: "utf8",
      timeout: 600_000,
      maxBuffer: 64 << 20,
      env: { ...process.env, NO_COLOR: "1" }
    }, (e, stdout, stderr) => done({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stdout, stderr }))
  )

const root = resolve(".")
const npm = (args: Array<string>, cwd: string) => sh("npm", args, cwd)

/** The README's library example, exactly as the README shows it. */
const readmeExample = () => {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("## Library"))
  return section.slice(section.indexOf("```ts\n") + 6, section.indexOf("\n```", section.indexOf("```ts\n")))
}

describe("the published package", () => {
  it(
    "packs without tests, bench or sources, and its tarball runs the README's library example in a new project",
    async () => {
      const out = mkdtempSync(join(tmpdir(), "aeon-pack-"))
      const manifestBefore = readFileSync(join(root, "package.json"), "utf8")
      // as npm publish packs it: prepack builds and sets the prepare script aside, postpack puts it back
      const pack = await npm(["pack", "--json", "--pack-destination", out], root)
      expect(pack.code, pack.stderr).toBe(0)
      expect(readFileSync(join(root, "package.json"), "utf8")).toBe(manifestBefore)
      const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
      const paths = info!.files.map((f) => f.path)
      expect(paths).toContain("dist/index.js")
      expect(paths).toContain("dist/index.d.ts")
      expect(paths).toContain("dist/app/cli.js")
      expect(paths.filter((p) => /^(test|bench|src|docs|scripts)\//.test(p))).toEqual([])

      // no install script it cannot run: the published manifest builds nothing (src/ and scripts/ are not shipped)
      const unpacked = mkdtempSync(join(tmpdir(), "aeon-unpacked-"))
      expect((await sh("tar", ["-xzf", join(out, info!.filename), "-C", unpacked], root)).code).toBe(0)
      const scripts = JSON.parse(readFileSync(join(unpacked, "package/package.json"), "utf8")).scripts
      for (const hook of ["preinstall", "install", "postinstall", "prepare"]) {
        expect(scripts[hook], hook).toBeUndefined()
      }

      const project = mkdtempSync(join(tmpdir(), "aeon-user-"))
      const effect = JSON.parse(readFileSync(join(root, "node_modules/effect/package.json"), "utf8")).version as string
      writeFileSync(
        join(project, "package.json"),
        JSON.stringify({ name: "user-project", private: true, type: "module" })
      )
      const install = await npm([
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        join(out, info!.filename),
        `effect@${effect}`
      ], project)
      expect(install.code, install.stderr).toBe(0)
      writeFileSync(join(project, "example.mjs"), readmeExample())
      const run = await sh(process.execPath, ["example.mjs"], project)
      expect(run.stderr).toBe("")
      expect(run.stdout).toMatch(/^CONVERGED [\s\S]*2 \+ 2 = 4/)
    },
    600_000
  )
})
