import { isAscii } from "node:buffer"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import module from "node:module"
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

  it("a command runs from it", () => {
    const version = JSON.parse(readFileSync("package.json", "utf8")).version
    expect(execFileSync(process.execPath, ["bin/aeon.mjs", "--version"], { encoding: "utf8" }).trim()).toBe(version)
  })
})
