// The build (`npm run build`, run by `npm install` through `prepare`):
//  - dist/: the library, compiled by tsc (ESM JavaScript and .d.ts), what `import ... from "aeon"` loads;
//  - dist/viewer/: the run viewer's page script (Preact, bundled for the browser: served by the server, no CDN);
//  - dist/app/: the CLI (`bin/aeon.mjs`) and the server (`npm start`) bundled by esbuild with code splitting, so a
//    command loads only what it runs and only the parts of `effect` it uses (`aeon --help`: 2.0 s from the
//    sources through tsx, 0.7 s from dist/, 0.3 s bundled, on the 2-core machine of bench/RESULTS.md).
// Native and data-heavy packages stay in node_modules (better-sqlite3 is a native addon; GraphiQL's page and the
// tokenizer's ranks are megabytes of data).
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import { rmSync } from "node:fs"
import process from "node:process"

rmSync("dist", { recursive: true, force: true })
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" })
await build({
  entryPoints: { cli: "src/cli/main.ts", server: "src/launch/main.ts" },
  outdir: "dist/app",
  bundle: true,
  splitting: true,
  minify: true,
  format: "esm",
  platform: "node",
  target: "node20",
  mainFields: ["module", "main"],
  external: ["better-sqlite3", "pg-native", "@graphql-yoga/render-graphiql", "gpt-tokenizer"],
  // bundled CommonJS packages call require(): give the ESM chunks one
  banner: {
    js: "import { createRequire as __aeonRequire } from 'node:module'; const require = __aeonRequire(import.meta.url);"
  },
  logLevel: "warning"
})
await build({
  entryPoints: { viewer: "src/viewer/App.tsx" },
  outdir: "dist/viewer",
  bundle: true,
  minify: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  logLevel: "warning"
})
