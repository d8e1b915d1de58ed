import { createRequire } from "node:module"
import { defineConfig } from "vitest/config"

const require = createRequire(import.meta.url)

export default defineConfig({
  // one graphql instance: Node (and graphql-yoga) load its CommonJS entry; Vite would otherwise pick the .mjs one
  resolve: { alias: { graphql: require.resolve("graphql") } },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // the suite waits on processes, servers, sockets and timers more than it computes: four files at once on the
    // 2-core machine ran it in 309 s against 688 s with two (Node 20, PostgreSQL, the same 706 tests green)
    maxWorkers: 4
  }
})
