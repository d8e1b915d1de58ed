import path from "node:path"
import { pathToFileURL } from "node:url"
import { overheadRunner } from "./Overhead.js"
import { fmt, median, takeTurns } from "./support.js"

/**
 * Two builds of the engine on the overhead loop (row 1's runs), in one process, run by run: this checkout and another
 * (`DIR`, a checkout with its dependencies installed — a `git worktree` with a link to this `node_modules` will do).
 *
 *   npx tsx bench/Compare.ts DIR [steps=10] [passes=3] [store|bare] [runs=300]
 *
 * Each round runs one run of each build, the first alternating (`takeTurns`), after 40 warm-up rounds; the figure is each build's
 * median wall time per run and their ratio. Run one build after the other in separate processes, this shared machine
 * moved the same build's median by up to ±20 % (two processes minutes apart); taking turns run by run, a slow moment
 * falls on both, and the ratio of one build to itself stayed within ±3 %: what a change of a few per cent needs.
 */
const [dir, steps = "10", passes = "3", store = "bare", runs = "300"] = process.argv.slice(2)
if (!dir) {
  console.error("usage: npx tsx bench/Compare.ts DIR [steps] [passes] [store|bare] [runs]")
  process.exit(1)
}
const other = (await import(pathToFileURL(path.resolve(dir, "bench/Overhead.ts")).href)) as {
  readonly overheadRunner: typeof overheadRunner
}
const options = { store: store === "store", steps: Number(steps), passes: Number(passes) }
const runners = [overheadRunner(options), other.overheadRunner(options)]
const walls = await takeTurns(runners.map((r) => async () => (await r.once()).wall), 40, Number(runs))
for (const r of runners) await r.dispose()
const [self, base] = walls.map(median) as [number, number]
const name = path.basename(path.resolve(dir))
const figures = `this ${fmt(self)} ms/run, ${name} ${fmt(base)} ms/run, this / ${name} = ${fmt(self / base)}`
console.log(`${steps} × ${passes} ${store}, ${runs} runs each: ${figures}`)
process.exit(0)
