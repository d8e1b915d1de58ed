#!/usr/bin/env node
// The `aeon` command: runs the TypeScript sources through tsx (a dependency), no build step.
import { register } from "tsx/esm/api"

register()
await import("../src/cli/main.ts")
