#!/usr/bin/env node
// The `aeon` command: the bundled CLI that `npm install` builds (scripts/build.mjs). On Node 22.1+ the compiled
// code is cached between runs (module.enableCompileCache), which shortens every start after the first.
import module from "node:module"
import process from "node:process"

module.enableCompileCache?.()
// a reader that stops reading (`aeon runs | head`) ends the command quietly, as other command-line tools do
process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0)
  throw e
})
await import("../dist/app/cli.js")
