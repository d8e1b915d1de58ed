import { createRequire } from "node:module"
import { resolve } from "node:path"
import type { Plugin } from "vite"
import { defineConfig } from "vitest/config"
import { configDefaults } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

const require = createRequire(import.meta.url)

/** Run by `npm run test:long` only (AEON_TEST_LONG). */
const LONG_ONLY = ["test/package/Pack.test.ts"]

/**
 * The files that take minutes, started first on every machine. Vitest starts the files that ran longest last time
 * first, but a fresh checkout (CI's) has no timings: it starts the largest files first, and a short file that runs
 * long — the published package installed in a new project, ~160 s — would start last and hold the suite's end back.
 */
const LONG_FIRST = [
  "test/package/Pack.test.ts",
  "test/cli/Cli.test.ts",
  "test/store/ExactResume.test.ts",
  "test/cluster/Cluster.test.ts",
  "test/cli/PlanCli.test.ts",
  "test/kernel/Properties.test.ts"
]

class LongFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>) {
    const rank = (f: TestSpecification) => {
      const at = LONG_FIRST.findIndex((path) => f.moduleId.endsWith(path))
      return at < 0 ? LONG_FIRST.length : at
    }
    // (a stable sort: the other files keep vitest's order)
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b))
  }
}

const SRC = resolve("src") + "/"
const DIST = resolve("dist") + "/"

/**
 * `npm test` (its pretest builds dist/) loads the library as Node loads it — dist/, compiled by tsc from src/ file by
 * file — not src/ through Vite's module runner, which made importing it ~5 s per test file (collect 720 s of the suite's
 * CPU). A test file still names src/; `npx vitest` alone (no AEON_TEST_FROM) loads src/ as before.
 */
const fromDist: Plugin = {
  name: "aeon-tests-load-dist",
  enforce: "pre",
  async resolveId(source, importer, options) {
    if (!importer || importer.startsWith(DIST)) return null
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true })
    if (!resolved || !resolved.id.startsWith(SRC) || !resolved.id.endsWith(".ts")) return null
    if (resolved.id.startsWith(`${SRC}viewer/`)) return null
    return resolved.id.replace(SRC, DIST).replace(/\.ts$/, ".js")
  }
}
const loadDist = process.env.AEON_TEST_FROM === "dist"

export default defineConfig({
  plugins: loadDist ? [fromDist] : [],
  // one graphql instance: Node (and graphql-yoga) load its CommonJS entry; Vite would otherwise pick the .mjs one
  resolve: { alias: { graphql: require.resolve("graphql") } },
  test: {
    include: ["test/**/*.test.ts"],
    // what must run long is `npm run test:long`'s (CI runs it after the suite): the published package installed in a
    // new project (~270 s of npm install)
    exclude: [...configDefaults.exclude, ...(process.env.AEON_TEST_LONG ? [] : LONG_ONLY)],
    server: { deps: { external: loadDist ? [new RegExp(`^${DIST.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`)] : [] } },
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    sequence: { sequencer: LongFirst },
    // the suite waits on processes, servers, sockets and timers more than it computes: four files at once on the
    // 2-core machine ran it in 309 s against 688 s with two (Node 20, PostgreSQL, the same 706 tests green)
    maxWorkers: 4
  }
})
