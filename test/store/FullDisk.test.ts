import Sqlite from "better-sqlite3"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync, watch, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { PromptId } from "../../src/prompts/PromptId.js"
import { cliIn } from "../support/cli.js"
import { planOut } from "../support/scripts.js"

/**
 * The disk fills while `aeon run` goes on (#46): a real small tmpfs (mounting one needs root; elsewhere the in-process
 * cases of StoreOutage.test stand). The plan call takes 4 s (a scripted model); once the run's start is stored the
 * test fills the disk, so the run's next writes fail with SQLite's own SQLITE_FULL.
 */
const root = process.getuid?.() === 0

const script = {
  fallback: "offline",
  [PromptId.PLAN_GENERATION_USER]: [{
    ...planOut([{
      id: "s1",
      d: "Compute 17 + 25 with the calculator",
      tool: "calculator",
      input: { expression: "17 + 25" }
    }]),
    delayMs: 4_000
  }]
}

/** The run's id once its start is stored (read beside the running CLI, read-only): looked at on each change to the data
 * directory (fs.watch), not on a timer. */
const runStarted = (dataDir: string) =>
  new Promise<string>((resolve) => {
    const look = () => {
      const db = join(dataDir, "aeon.db")
      if (!existsSync(db)) return
      try {
        const conn = new Sqlite(db, { readonly: true, fileMustExist: true })
        try {
          const row = conn.prepare("SELECT run_id FROM run_events WHERE seq = 1").get() as
            | { run_id: string }
            | undefined
          if (!row) return
          watcher.close()
          resolve(row.run_id)
        } finally {
          conn.close()
        }
      } catch {
        // not created yet
      }
    }
    const watcher = watch(dataDir, look)
    look()
  })

/** Fills the disk: a file as large as the space left (the last bytes refused: the disk is full). */
const fill = (mount: string) => {
  const { bavail, bsize } = statfsSync(mount)
  try {
    writeFileSync(join(mount, "fill"), Buffer.alloc(Number(bavail) * Number(bsize)))
  } catch {
    // ENOSPC: full, as wanted
  }
}

const withTmpfs = async (
  ctx: { skip: () => void },
  body: (mount: string) => Promise<void>
) => {
  const mount = mkdtempSync(join(tmpdir(), "aeon-filling-"))
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mount])
  } catch {
    return ctx.skip()
  }
  try {
    await body(mount)
  } finally {
    execFileSync("umount", [mount])
  }
}

describe.skipIf(!root)("the disk fills mid-run (aeon run, the embedded store on a tmpfs)", () => {
  it("the run waits, says why on stderr, and converges once space is freed: nothing lost", async (ctx) => {
    await withTmpfs(ctx, async (mount) => {
      const cli = cliIn("aeon-filling-cli-")
      mkdirSync(join(mount, "data"))
      cli.env.AEON_DATA_DIR = join(mount, "data")
      writeFileSync(join(cli.dir, "script.json"), JSON.stringify(script))
      const running = cli.aeonWatched("run", "Compute 17 + 25", "--script", join(cli.dir, "script.json"), "--json")
      const runId = await runStarted(join(mount, "data"))
      fill(mount)
      // the plan call ends at 4 s; its record cannot be written: the run waits, and says so
      await running.untilSaid("waits for its store")
      rmSync(join(mount, "fill"))
      const r = await running.done
      expect(r.stderr).toContain(`run ${runId} waits for its store: the disk holding the embedded database is full`)
      expect(r.stderr).toContain("the run goes on")
      expect(r.code).toBe(0)
      const result = JSON.parse(r.stdout)
      expect(result).toMatchObject({ runId, status: "CONVERGED" })
      expect(result.finalAnswer.answerText).toContain("42")
      // the run's record says it waited, and why (its advisories, in the JSON too)
      expect(result.advisories.join("\n")).toMatch(/the run waited [\d.]+ s for its store: the disk holding/)
      const inspect = await cli.aeon("inspect", runId, "--events", "--json")
      const events = JSON.parse(inspect.stdout) as Array<{ seq: number; _tag: string }>
      expect(events.at(-1)?._tag).toBe("RunFinished")
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
    })
  }, 60_000)

  it(
    "past AEON_STORE_OUTAGE_MS: exit 4, the cause and how to resume; resumed once space is freed, it converges",
    async (ctx) => {
      await withTmpfs(ctx, async (mount) => {
        const cli = cliIn("aeon-filling-cli-")
        mkdirSync(join(mount, "data"))
        cli.env.AEON_DATA_DIR = join(mount, "data")
        cli.env.AEON_STORE_OUTAGE_MS = "1500"
        writeFileSync(join(cli.dir, "script.json"), JSON.stringify(script))
        const running = cli.aeon("run", "Compute 17 + 25", "--script", join(cli.dir, "script.json"), "--json")
        const runId = await runStarted(join(mount, "data"))
        fill(mount)
        const r = await running
        expect(r.code).toBe(4)
        expect(r.stderr).toContain(
          `the store failed: the disk holding the embedded database is full (free some space, or set AEON_DATA_DIR to another disk)`
        )
        expect(r.stderr).toContain(`resume with: aeon run --resume ${runId}`)
        expect(r.stderr).not.toMatch(/SQLITE_|at .*\.js:\d+/)
        rmSync(join(mount, "fill"))
        const resumed = await cli.aeon("run", "--resume", runId, "--json", "--script", join(cli.dir, "script.json"))
        expect(resumed.code).toBe(0)
        expect(JSON.parse(resumed.stdout)).toMatchObject({ runId, status: "CONVERGED" })
      })
    },
    60_000
  )
})
