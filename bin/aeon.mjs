#!/usr/bin/env node
// The `aeon` command: the bundled CLI that `npm install` builds (scripts/build.mjs). On Node 22.1+ the compiled
// code is cached between runs (module.enableCompileCache), which shortens every start after the first.
import module from "node:module"

module.enableCompileCache?.()
await import("../dist/app/cli.js")
