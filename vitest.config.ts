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
    pool: "forks"
  }
})
