import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

/**
 * Start-up (`npm run bench -- startup [--baseline DIR]`): wall time and peak RSS of `aeon --help`, of
 * `aeon run "Compute 2 + 2" --provider offline` on a new data directory, the server's time to its first health
 * answer, and its RSS idle and after 1,000 finished runs. `--baseline DIR` measures another checkout (an older
 * commit, built and installed) the same way in the same run, for a side-by-side table (`--baseline-only`: that one alone).
 */
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const gnuTime = existsSync("/usr/bin/time")

/** Wall ms and peak RSS (MB, from GNU time when present) of one command. */
const timed = (cwd: string, args: Array<string>, env: Record<string, string> = {}) => {
  const started = performance.now()
  const r = gnuTime
    ? spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, ...args], {
      cwd,
      env: { ...process.env, ...env },
      encoding: "utf8"
    })
    : spawnSync(process.execPath, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8" })
  const wallMs = performance.now() - started
  if (r.status !== 0 && r.status !== 2) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`)
  const kb = gnuTime ? Number(r.stderr.trim().split("\n").at(-1)) : NaN
  return { wallMs, rssMb: kb / 1024 }
}

const rssOf = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)![1]) / 1024

const gql = async (url: string, query: string) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query })
  })
  return (await res.json()) as any
}

/** The server: ms to the first health answer, RSS idle, RSS after `runs` finished runs. */
const server = async (cwd: string, runs: number) => {
  const dataDir = mkdtempSync(join(tmpdir(), "aeon-bench-start-"))
  const port = 4600 + Math.floor(Math.random() * 300)
  const url = `http://127.0.0.1:${port}/graphql`
  const started = performance.now()
  // `npm start`'s command: `node dist/app/server.js`, or the version before the build step's `tsx src/launch/main.ts`
  const [runner, entry] = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")).scripts.start.split(" ")
  const child = spawn(process.execPath, runner === "tsx" ? ["--import", "tsx", entry] : [entry], {
    cwd,
    env: {
      ...process.env,
      AEON_PORT: String(port),
      AEON_DATA_DIR: dataDir,
      AEON_MODEL_PROVIDER: "offline",
      AEON_MAX_CONCURRENT_RUNS: "16"
    },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr!.on("data", (d) => (stderr = (stderr + d).slice(-4000)))
  child.once("exit", (code) => {
    if (code !== null && code !== 0) console.error(`the server in ${cwd} exited ${code}: ${stderr}`)
  })
  try {
    let readyMs = NaN
    while (performance.now() - started < 60_000) {
      const ok = await gql(url, "{ health { ok } }").then((b) => b.data?.health?.ok === true, () => false)
      if (ok) {
        readyMs = performance.now() - started
        break
      }
      await new Promise((r) => setTimeout(r, 5))
    }
    await new Promise((r) => setTimeout(r, 2000))
    const idleMb = rssOf(child.pid!)
    for (let i = 0; i < runs; i += 50) {
      await Promise.all(
        Array.from(
          { length: Math.min(50, runs - i) },
          () => gql(url, `mutation { runTask(input: { task: "Compute 2 + 2", mode: SIMPLE }) { id } }`)
        )
      )
    }
    while (
      (await gql(url, "{ health { activeRuns queuedRuns } }")).data.health.activeRuns +
          (await gql(url, "{ health { queuedRuns } }")).data.health.queuedRuns > 0
    ) {
      await new Promise((r) => setTimeout(r, 200))
    }
    await new Promise((r) => setTimeout(r, 2000))
    return { readyMs, idleMb, afterRunsMb: rssOf(child.pid!) }
  } finally {
    child.kill("SIGTERM")
  }
}

export const startup = async (cwd: string, repeats: number, runs: number) => {
  const floor = median(Array.from({ length: repeats }, () => timed(cwd, ["-e", "0"]).wallMs))
  const help = Array.from({ length: repeats }, () => timed(cwd, ["bin/aeon.mjs", "--help"]))
  const run = Array.from(
    { length: Math.max(3, Math.floor(repeats / 2)) },
    () =>
      timed(cwd, ["bin/aeon.mjs", "run", "Compute 2 + 2", "--provider", "offline"], {
        AEON_DATA_DIR: mkdtempSync(join(tmpdir(), "aeon-bench-run-"))
      })
  )
  return {
    nodeFloorMs: floor,
    helpMs: median(help.map((h) => h.wallMs)),
    helpRssMb: median(help.map((h) => h.rssMb)),
    runMs: median(run.map((r) => r.wallMs)),
    runRssMb: median(run.map((r) => r.rssMb)),
    ...(await server(cwd, runs))
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const baseline = process.argv.indexOf("--baseline")
  const quick = process.argv.includes("--quick")
  const only = process.argv.includes("--baseline-only")
  const dirs = [...(only ? [] : [resolve(".")]), ...(baseline > 0 ? [resolve(process.argv[baseline + 1]!)] : [])]
  for (const dir of dirs) {
    const rev = execFileSync("git", ["log", "-1", "--format=%h %s"], { cwd: dir, encoding: "utf8" }).trim().slice(0, 60)
    console.log(JSON.stringify({ dir, rev, ...(await startup(dir, quick ? 3 : 10, quick ? 100 : 1000)) }))
  }
}
