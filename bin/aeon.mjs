#!/usr/bin/env node
// The `aeon` command: the bundled CLI that `npm install` builds (scripts/build.mjs). Each command starts by compiling
// the code it runs, unless a compile cache spares it: on Node 22.1+ Node's own (module.enableCompileCache, the split
// ESM bundle); before it, the V8 code cache the build made for this Node, beside the CLI's one-file CommonJS build.
import { isAscii } from "node:buffer"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import module from "node:module"
import { dirname } from "node:path"
import process from "node:process"
import { fileURLToPath, URL } from "node:url"
import vm from "node:vm"

// a reader that stops reading (`aeon runs | head`) ends the command quietly, as other command-line tools do
process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0)
  throw e
})

/**
 * dist/app/cli.cjs run from its code cache (dist/app/cli-<V8 version>.cache): false when there is none for this Node.
 * The build writes the cache (AEON_CLI_CODE_CACHE=write: the code compiled by the time the command exits).
 */
const startedFromCodeCache = () => {
  const file = fileURLToPath(new URL("../dist/app/cli.cjs", import.meta.url))
  const cacheFile = file.replace(/\.cjs$/, `-${process.versions.v8}.cache`)
  const writing = process.env.AEON_CLI_CODE_CACHE === "write"
  if (!existsSync(file) || !(writing || existsSync(cacheFile))) return false
  const bytes = readFileSync(file)
  // an ASCII file (the build keeps it so) is read as Latin-1: the same text, without UTF-8's decoding
  const script = new vm.Script(module.wrap(bytes.toString(isAscii(bytes) ? "latin1" : "utf8")), {
    filename: file,
    ...(writing ? {} : { cachedData: readFileSync(cacheFile) }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  if (writing) process.once("exit", () => writeFileSync(cacheFile, script.createCachedData()))
  const cjs = { exports: {} }
  script.runInThisContext()(cjs.exports, module.createRequire(file), cjs, file, dirname(file))
  return true
}

module.enableCompileCache?.()
if (module.enableCompileCache || !startedFromCodeCache()) await import("../dist/app/cli.js")
