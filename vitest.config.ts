import { createRequire } from "node:module"
import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

const require = createRequire(import.meta.url)

/**
 * The files that take minutes, started first on every machine. Vitest starts the files that ran longest last time
 * first, but a fresh checkout (CI's) has no timings: it starts the largest files first, and a short file that runs
 * long — the published package installed in a new project, ~160 s — would start last and hold the suite's end back.
 */
const LONG_FIRST = [
  "test/package/Pack.test.ts",
  "test/store/ExactResume.test.ts",
  "test/cluster/Cluster.test.ts",
  "test/cli/Cli.test.ts",
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

export default defineConfig({
  // one graphql instance: Node (and graphql-yoga) load its CommonJS entry; Vite would otherwise pick the .mjs one
  resolve: { alias: { graphql: require.resolve("graphql") } },
  test: {
    include: ["test/**/*.test.ts"],
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
