#!/usr/bin/env node
// The `aeon` command of aeon-engine-cli: aeon-engine's own bin (its bundled CLI and server), installed with the
// packages the library leaves optional and the CLI needs — the embedded store's driver (better-sqlite3) and GraphiQL.
import "aeon-engine/bin/aeon.mjs"
