import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DataDirLock from "../../src/store/DataDirLock.js"
import { lockHolder } from "../support/lockHolder.js"

const dir = () => mkdtempSync(join(tmpdir(), "aeon-lock-"))
const failureOf = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? String(exit.cause) : "")
const exited = (child: ReturnType<typeof spawn>) => new Promise((resolve) => child.once("exit", resolve))

describe("one process at a time on an embedded data directory", () => {
  it.scoped("a second open in the same process is refused; closing releases the lock", () =>
    Effect.gen(function*() {
      const d = dir()
      yield* Effect.scoped(Effect.gen(function*() {
        yield* DataDirLock.acquire(d)
        expect(failureOf(yield* Effect.exit(DataDirLock.acquire(d)))).toContain("already open in this process")
      }))
      expect(existsSync(join(d, "aeon.pid"))).toBe(false)
      yield* Effect.scoped(DataDirLock.acquire(d)) // free again
    }))

  it.live("a directory another live process holds is refused, naming it and what to do", () =>
    Effect.gen(function*() {
      const d = dir()
      const owner = lockHolder(d)
      yield* Effect.addFinalizer(() => Effect.sync(() => owner.child.kill("SIGKILL")))
      expect(yield* Effect.promise(() => owner.outcome)).toBe("held")
      const message = failureOf(yield* Effect.exit(Effect.scoped(DataDirLock.acquire(d))))
      expect(message).toContain(`in use by process ${owner.child.pid}`)
      expect(message).toContain("AEON_DATA_DIR")
    }).pipe(Effect.scoped))

  it.live("kill -9 of the owner releases it at once: a restart right after takes it", () =>
    Effect.gen(function*() {
      const d = dir()
      const owner = lockHolder(d)
      expect(yield* Effect.promise(() => owner.outcome)).toBe("held")
      owner.child.kill("SIGKILL")
      yield* Effect.promise(() => exited(owner.child))
      yield* Effect.scoped(DataDirLock.acquire(d))
    }))

  it.live("lock files naming a live unrelated process, or this process, are not trusted: the lock is taken", () =>
    Effect.gen(function*() {
      const unrelated = spawn("sleep", ["30"])
      yield* Effect.addFinalizer(() => Effect.sync(() => unrelated.kill()))
      for (const pid of [unrelated.pid!, process.pid]) {
        const d = dir()
        // as an earlier version (a text lock) or a crashed owner left them
        writeFileSync(join(d, "aeon.lock"), String(pid))
        writeFileSync(join(d, "aeon.pid"), String(pid))
        yield* Effect.scoped(DataDirLock.acquire(d))
      }
    }).pipe(Effect.scoped))

  it.live("two processes at once: exactly one takes it", () =>
    Effect.gen(function*() {
      const d = dir()
      const both = [lockHolder(d), lockHolder(d)]
      yield* Effect.addFinalizer(() => Effect.sync(() => both.forEach((h) => h.child.kill("SIGKILL"))))
      const outcomes = yield* Effect.promise(() => Promise.all(both.map((h) => h.outcome)))
      expect(outcomes.filter((o) => o === "held")).toHaveLength(1)
      expect(outcomes.find((o) => o !== "held")).toMatch(/^busy: .*in use by/)
    }).pipe(Effect.scoped))
})
