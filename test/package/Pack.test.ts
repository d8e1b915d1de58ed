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

/** Packs the package in `dir` as npm publish would; the tarball's path and the files it holds. */
const packIn = async (dir: string, out: string) => {
  const pack = await npm(["pack", "--json", "--pack-destination", out], dir)
  expect(pack.code, pack.stderr).toBe(0)
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
  return { tarball: join(out, info!.filename), paths: info!.files.map((f) => f.path) }
}

const newProject = (name: string, manifest: Record<string, unknown> = {}) => {
  const project = mkdtempSync(join(tmpdir(), `aeon-${name}-`))
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "user-project", private: true, type: "module", ...manifest })
  )
  return project
}

const installIn = (project: string, ...args: Array<string>) =>
  npm(["install", "--prefer-offline", "--no-audit", "--no-fund", ...args], project)

const effectVersion = () =>
  JSON.parse(readFileSync(join(root, "node_modules/effect/package.json"), "utf8")).version as string

describe("the published packages", () => {
  it(
    "aeon-engine packs without tests, bench or sources; installed by name in a new project it is this project, adds at most 60 packages, and runs the README's library example",
    async () => {
      const out = mkdtempSync(join(tmpdir(), "aeon-pack-"))
      const manifestBefore = readFileSync(join(root, "package.json"), "utf8")
      // as npm publish packs it: prepack builds and sets the prepare script aside, postpack puts it back
      const { tarball, paths } = await packIn(root, out)
      expect(readFileSync(join(root, "package.json"), "utf8")).toBe(manifestBefore)
      expect(paths).toContain("dist/index.js")
      expect(paths).toContain("dist/index.d.ts")
      expect(paths).toContain("dist/app/cli.js")
      expect(paths.filter((p) => /^(test|bench|src|docs|scripts|packages)\//.test(p))).toEqual([])

      // no install script it cannot run: the published manifest builds nothing (src/ and scripts/ are not shipped)
      const unpacked = mkdtempSync(join(tmpdir(), "aeon-unpacked-"))
      expect((await sh("tar", ["-xzf", tarball, "-C", unpacked], root)).code).toBe(0)
      const scripts = JSON.parse(readFileSync(join(unpacked, "package/package.json"), "utf8")).scripts
      for (const hook of ["preinstall", "install", "postinstall", "prepare"]) {
        expect(scripts[hook], hook).toBeUndefined()
      }

      // the README's library line, in a new project (#76 items 1 and 8)
      const project = newProject("user")
      const install = await installIn(project, tarball, `effect@${effectVersion()}`)
      expect(install.code, install.stderr).toBe(0)
      const added = Number(/added (\d+) package/.exec(install.stdout)?.[1])
      expect(added).toBeLessThanOrEqual(60)
      // the name resolves to this project: its manifest, and the module the name imports
      const installed = JSON.parse(readFileSync(join(project, "node_modules/aeon-engine/package.json"), "utf8"))
      expect(installed.name).toBe("aeon-engine")
      expect(installed.description).toBe(JSON.parse(manifestBefore).description)
      writeFileSync(join(project, "example.mjs"), readmeExample())
      const run = await sh(process.execPath, ["example.mjs"], project)
      expect(run.stderr).toBe("")
      expect(run.stdout).toMatch(/^CONVERGED [\s\S]*2 \+ 2 = 4/)

      // a feature whose optional package is not installed says which to install
      writeFileSync(
        join(project, "store.mjs"),
        `import { Database } from "aeon-engine"\nimport { Effect, Layer } from "effect"\n` +
          `Effect.runPromise(Effect.scoped(Layer.build(Database.layer({ dataDir: "memory" }))))` +
          `.then(() => console.log("opened"), (e) => console.log(String(e)))\n`
      )
      const store = await sh(process.execPath, ["store.mjs"], project)
      expect(store.stdout).toContain(
        "The embedded store needs the package better-sqlite3, which is not installed: npm install better-sqlite3"
      )
    },
    600_000
  )

  it(
    "aeon-engine-cli installs the aeon command whole: a run on the embedded store, offline",
    async () => {
      const out = mkdtempSync(join(tmpdir(), "aeon-pack-cli-"))
      const engine = await packIn(root, out)
      const cli = await packIn(join(root, "packages/cli"), out)
      expect(cli.paths.sort()).toEqual(["README.md", "aeon.mjs", "package.json"])
      // npm 11 runs better-sqlite3's install script (its native addon) only where the project allows it
      const project = newProject("cli-user", { allowScripts: { "better-sqlite3": true } })
      const install = await installIn(project, engine.tarball, cli.tarball)
      expect(install.code, install.stderr).toBe(0)
      const aeon = join(project, "node_modules/.bin/aeon")
      const version = await sh(aeon, ["--version"], project)
      expect(version.stdout.trim()).toBe(`${JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version}`)
      const run = await sh(aeon, ["run", "--provider", "offline", "--json", "Compute 2 + 2"], project)
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout).status).toBe("CONVERGED")
    },
    900_000
  )
})
