import { isAscii } from "node:buffer"
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import module from "node:module"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import vm from "node:vm"
import { describe, expect, it } from "vitest"

// On a Node without a compile cache of its own (before 22.1), `aeon` runs the CLI's one-file CommonJS build from the V8
// code cache the build made for this Node: a cache V8 turned down would leave every command compiling its code again.
const file = "dist/app/cli.cjs"
const cacheFile = `dist/app/cli-${process.versions.v8}.cache`

describe.skipIf("enableCompileCache" in module)("the CLI's code cache (Node 20)", () => {
  it("the build made one for this Node, and V8 takes it for the CLI's code (an ASCII file: read without decoding)", () => {
    expect(existsSync(cacheFile)).toBe(true)
    expect(isAscii(readFileSync(file))).toBe(true)
    const script = new vm.Script(module.wrap(readFileSync(file, "utf8")), {
      filename: file,
      cachedData: readFileSync(cacheFile),
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
    })
    expect(script.cachedDataRejected).toBe(false)
  })

  it("a command runs from it: the split ESM bundle is not needed", () => {
    // a copy of the package holding the command, the one-file build and its cache, but not the ESM bundle
    const copy = mkdtempSync(join(tmpdir(), "aeon-code-cache-"))
    try {
      mkdirSync(join(copy, "dist/app"), { recursive: true })
      for (const f of ["bin/aeon.mjs", "package.json", file, cacheFile]) cpSync(f, join(copy, f))
      symlinkSync(resolve("node_modules"), join(copy, "node_modules"))
      const version = JSON.parse(readFileSync("package.json", "utf8")).version
      const said = execFileSync(process.execPath, [join(copy, "bin/aeon.mjs"), "--version"], { encoding: "utf8" })
      expect(said.trim()).toBe(version)
    } finally {
      rmSync(copy, { recursive: true, force: true })
    }
  })
})
