#!/usr/bin/env node
// The `aeon` command: the bundled CLI that `npm install` builds (scripts/build.mjs).
await import("../dist/app/cli.js")
