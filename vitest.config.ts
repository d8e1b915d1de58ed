import { createRequire } from "node:module"
import { defineConfig } from "vitest/config"
import { configDefaults } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

const require = createRequire(import.meta.url)
const nodeMajor = Number(process.versions.node.split(".")[0])

/** Run by `npm run test:long` only (AEON_TEST_LONG). */
const LONG_ONLY = ["test/package/Pack.test.ts"]

/**
 * The files that take longest (over ~13 s each on the 2-core machine; longest first), started first on every machine. Vitest starts the files that ran longest last time
 * first, but a fresh checkout (CI's) has no timings: it starts the largest files first, and a short file that runs
 * long — the published package installed in a new project, ~160 s — would start last and hold the suite's end back.
 */
const LONG_FIRST = [
  "test/package/Pack.test.ts",
  "test/cluster/Cluster.test.ts",
  "test/cli/Cli.test.ts",
  "test/store/ExactResume.test.ts",
  "test/cli/PlanCli.test.ts",
  "test/cli/Messages.test.ts",
  "test/runs/RunOwners.test.ts",
  "test/store/FullDisk.test.ts",
  "test/conversation/Ordering.test.ts",
  "test/kernel/Properties.test.ts",
  "test/browser/Viewer.test.ts",
  "test/mcp/AeonAsMcpServer.test.ts",
  "test/server/Process.test.ts"
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

/**
 * Files that need a process of their own: what they check is the process's (the tokenizer loaded once per process).
 * The others share their worker's process, one file after another (isolate: false): a fresh process per file spent
 * 720 of the suite's 2,360 s of file time importing Aeon again (vitest's "collect"), 80 s shared.
 */
const OWN_PROCESS = ["test/llm/TokenizerLoad.test.ts"]
const excluded = [...configDefaults.exclude, ...(process.env.AEON_TEST_LONG ? [] : LONG_ONLY)]

export default defineConfig({
  // one graphql instance: Node (and graphql-yoga) load its CommonJS entry; Vite would otherwise pick the .mjs one
  resolve: { alias: { graphql: require.resolve("graphql") } },
  test: {
    // what must run long is `npm run test:long`'s (CI runs it after the suite): the published package installed in a
    // new project (~270 s of npm install). (Each project names its files: a project's lists add to the root's.)
    projects: [
      {
        extends: true,
        test: { name: "shared", include: ["test/**/*.test.ts"], exclude: [...excluded, ...OWN_PROCESS] }
      },
      { extends: true, test: { name: "own-process", include: OWN_PROCESS } }
    ],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // a project's files share a worker's process; each project starts on fresh ones (vitest recycles the workers
    // between projects when isolate is off): TokenizerLoad gets a process of its own. Not on Node 24+: there
    // better-sqlite3's destructors, run by the garbage collector, abort a process that has opened and dropped many
    // databases ("Assertion failed: (env) != nullptr", WiseLibs/better-sqlite3#1515): a process per file, as before
    isolate: nodeMajor >= 24,
    sequence: { sequencer: LongFirst },
    // the suite waits on processes, servers, sockets and timers more than it computes: four files at once on the
    // 2-core machine ran it in 309 s against 688 s with two (Node 20, PostgreSQL, the same 706 tests green)
    maxWorkers: 4,
    // every worker kept to the end: vitest 3.2 lets idle ones go, and a non-isolated worker let go mid-run rejects
    // with "Terminating worker thread" (vitest-dev/vitest#8133)
    minWorkers: 4
  }
})
