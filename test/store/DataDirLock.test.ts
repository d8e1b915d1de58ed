import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DataDirLock from "../../src/store/DataDirLock.js"

const dir = () => mkdtempSync(join(tmpdir(), "aeon-lock-"))

describe("one process at a time on an embedded data directory", () => {
  it.scoped("the lock holds the owner's pid; a second open in the same process is refused; closing releases it", () =>
    Effect.gen(function*() {
      const d = dir()
      yield* Effect.scoped(Effect.gen(function*() {
        const path = yield* DataDirLock.acquire(d)
        expect(readFileSync(path, "utf8")).toBe(String(process.pid))
        const again = yield* Effect.exit(DataDirLock.acquire(d))
        expect(Exit.isFailure(again) && String(again.cause)).toContain("already open in this process")
      }))
      expect(existsSync(join(d, "aeon.lock"))).toBe(false)
    }))

  it.scoped("a directory another live process holds is refused with what to do", () =>
    Effect.gen(function*() {
      const d = dir()
      const other = spawn("sleep", ["30"])
      yield* Effect.addFinalizer(() => Effect.sync(() => other.kill()))
      writeFileSync(join(d, "aeon.lock"), String(other.pid))
      const refused = yield* Effect.exit(DataDirLock.acquire(d))
      expect(Exit.isFailure(refused)).toBe(true)
      const message = String(Exit.isFailure(refused) ? refused.cause : "")
      expect(message).toContain(`in use by process ${other.pid}`)
      expect(message).toContain("AEON_DATA_DIR")
      expect(readFileSync(join(d, "aeon.lock"), "utf8")).toBe(String(other.pid)) // the owner's lock is untouched
    }))

  it.scoped("a lock left by a process that is gone is taken over", () =>
    Effect.gen(function*() {
      const d = dir()
      const gone = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim()
      writeFileSync(join(d, "aeon.lock"), gone)
      const path = yield* DataDirLock.acquire(d)
      expect(readFileSync(path, "utf8")).toBe(String(process.pid))
    }))
})
