/* global console */
// The build (`npm run build`, run by `npm install` through `prepare`):
//  - dist/: the library, compiled by tsc (ESM JavaScript and .d.ts), what `import ... from "aeon-engine"` loads;
//  - dist/viewer/: the run viewer's page script (Preact, bundled for the browser: served by the server, no CDN);
//  - dist/app/: the CLI (`bin/aeon.mjs`) and the server (`npm start`) bundled by esbuild with code splitting, so a
//    command loads only what it runs and only the parts of `effect` it uses (`aeon --help`: 2.0 s from the
//    sources through tsx, 0.7 s from dist/, 0.3 s bundled, on the 2-core machine of bench/RESULTS.md).
// Native and data-heavy packages stay in node_modules (better-sqlite3 is a native addon; GraphiQL's page and the
// tokenizer's ranks are megabytes of data).
import { build } from "esbuild"
import { execFile, execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import module, { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import process from "node:process"
import { promisify } from "node:util"

/**
 * One copy of graphql in the bundle. `graphql` resolves to its ESM build (index.mjs), but a deep import such as
 * graphql-armor's `graphql/language/parser` would resolve to the CommonJS file (graphql 16 has no exports map): two
 * copies, and a GraphQLError of one is not an instance of the other's, so yoga masked a syntax error as an internal
 * error (HTTP 500 "Unexpected error."). Deep imports go to the .mjs file beside the .js one.
 */
const graphqlRoot = dirname(createRequire(import.meta.url).resolve("graphql/package.json"))
const oneGraphql = {
  name: "one-graphql",
  setup(b) {
    b.onResolve({ filter: /^graphql\/.+/ }, (args) => {
      const file = join(graphqlRoot, `${args.path.slice("graphql/".length).replace(/\.m?js$/, "")}.mjs`)
      return existsSync(file) ? { path: file } : undefined
    })
  }
}

/**
 * The CLI's CommonJS build loads the packages left outside the bundle through require(), also where the sources
 * import them lazily (`import("better-sqlite3")`): run from a V8 code cache (bin/aeon.mjs), a script's functions lose
 * its dynamic-import callback on Node 20 ("A dynamic import callback was not specified"). Each such import becomes a
 * one-line module of the bundle that requires the package.
 */
const requiredExternals = {
  name: "required-externals",
  setup(b) {
    b.onResolve(
      { filter: /^(better-sqlite3|@graphql-yoga\/render-graphiql)$/ },
      (args) => args.kind === "dynamic-import" ? { path: args.path, namespace: "required-external" } : undefined
    )
    b.onLoad({ filter: /.*/, namespace: "required-external" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)})`,
      loader: "js"
    }))
  }
}

/**
 * `npm install`'s own rebuild (`prepare`, also run when `npm install` installs this folder as a dependency) never replaces dist/ under a
 * server serving from it: a server that published its address beside this checkout's data directory and is alive
 * keeps the dist/ it started with (`npm run build` still rebuilds on purpose).
 */
const servingHere = () => {
  try {
    const { pid } = JSON.parse(readFileSync(join(process.env.AEON_DATA_DIR ?? ".aeon/data", "server.json"), "utf8"))
    process.kill(pid, 0)
    return pid
  } catch {
    return undefined
  }
}
if (process.env.npm_lifecycle_event === "prepare" && existsSync("dist/app") && servingHere() !== undefined) {
  console.log(`aeon: dist/ is kept: the server (process ${servingHere()}) serves from it; npm run build rebuilds it`)
  process.exit(0)
}

/**
 * What dist/ is built from, as one hash: the sources, this script, the compiler's settings, the locked packages and
 * the Node that builds.
 * `npm test` builds through `--if-changed` (its `pretest`): after `npm install` (whose `prepare` built) or a run that
 * changed nothing, dist/ is already what the sources make, and a second build of the same inputs is skipped (about 20 s
 * of the suite's wall time on the 2-core machine).
 */
const inputsHash = () => {
  // the Node that builds is an input too: the CLI's code cache is made for its V8
  const hash = createHash("sha256").update(`${process.versions.v8}\0`)
  const files = ["scripts/build.mjs", "package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"]
  for (const entry of readdirSync("src", { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(join(entry.parentPath ?? entry.path, entry.name))
  }
  for (const file of files.sort()) {
    hash.update(`${file}\0`)
    if (existsSync(file)) hash.update(readFileSync(file))
  }
  return hash.digest("hex")
}
const STAMP = "dist/.inputs"
const inputs = inputsHash()
if (process.argv.includes("--if-changed") && existsSync(STAMP) && readFileSync(STAMP, "utf8") === inputs) {
  console.log("aeon: dist/ is built from these sources already (npm run build rebuilds it)")
  process.exit(0)
}

/**
 * The CLI's V8 code cache for this Node (dist/app/cli-<V8 version>.cache): written by a command that runs the engine
 * once (`aeon run` on the offline model in a data directory of its own, no provider or database of the machine's),
 * so the code it compiled as it ran is in the cache too.
 */
const cliCodeCache = () => {
  const dataDir = mkdtempSync(join(tmpdir(), "aeon-build-"))
  const env = { ...process.env, AEON_CLI_CODE_CACHE: "write", AEON_DATA_DIR: dataDir }
  for (const k of ["AEON_DATABASE_URL", "AEON_MODEL_PROVIDER", "AEON_SCRIPT", "AEON_MCP_CONFIG"]) delete env[k]
  try {
    execFileSync(process.execPath, ["bin/aeon.mjs", "run", "Compute 2 + 2", "--provider", "offline"], {
      env,
      stdio: "ignore",
      timeout: 60_000
    })
  } catch {
    // a run that did not converge still wrote the cache; a command that failed to start wrote none (the ESM path)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

rmSync("dist", { recursive: true, force: true })
// the library (tsc) and the bundles (esbuild) at once: two processes, two cores
const library = promisify(execFile)(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"])
  .catch((e) => {
    process.stdout.write(e.stdout ?? "")
    process.stderr.write(e.stderr ?? "")
    throw new Error("the library's build (tsc -p tsconfig.build.json) failed")
  })
const bundled = {
  bundle: true,
  minify: true,
  platform: "node",
  target: "node20",
  mainFields: ["module", "main"],
  external: ["better-sqlite3", "pg-native", "@graphql-yoga/render-graphiql", "gpt-tokenizer"],
  plugins: [oneGraphql],
  logLevel: "warning"
}
await build({
  ...bundled,
  entryPoints: { cli: "src/cli/main.ts", server: "src/launch/main.ts" },
  outdir: "dist/app",
  splitting: true,
  format: "esm",
  // bundled CommonJS packages call require(): give the ESM chunks one
  banner: {
    js: "import { createRequire as __aeonRequire } from 'node:module'; const require = __aeonRequire(import.meta.url);"
  }
})
/**
 * The CLI once more, as one CommonJS file, for a Node without a compile cache of its own (before 22.1): there
 * bin/aeon.mjs runs it with the V8 code cache made below, which spares each command compiling its code again (about
 * 30 % of `aeon run`'s CPU on the 2-core machine). A Node with `module.enableCompileCache` runs the split ESM bundle.
 */
await build({
  ...bundled,
  entryPoints: { cli: "src/cli/main.ts" },
  outdir: "dist/app",
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  plugins: [oneGraphql, requiredExternals],
  // the packages' licence comments in cli.cjs.LEGAL.txt: the file stays ASCII, which bin/aeon.mjs reads without decoding
  legalComments: "external",
  define: { "import.meta.url": "__aeonModuleUrl" },
  banner: { js: "const __aeonModuleUrl = require('node:url').pathToFileURL(__filename).href;" }
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
await library
if (!module.enableCompileCache) cliCodeCache()
writeFileSync(STAMP, inputs)
