import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { storeCauseInWords } from "../../src/store/StoreCause.js"
import { storeError } from "../../src/store/StoreValues.js"
import { cliIn } from "../support/cli.js"

/** A store that fails names the cause in words (#46 item 4): the disk full, a database that refuses connections. */
describe("the store's failures in words", () => {
  it("reads the codes along a failure's causes: SQLite's, PostgreSQL's, the system's", () => {
    const wrapped = (cause: object) => ({ message: "statement failed", cause })
    expect(storeCauseInWords(wrapped({ code: "SQLITE_FULL" }))).toContain(
      "the disk holding the embedded database is full"
    )
    expect(storeCauseInWords(wrapped({ code: "SQLITE_IOERR_WRITE" }))).toContain("reports an I/O error")
    expect(storeCauseInWords(wrapped({ code: "57P03" }))).toContain("PostgreSQL does not accept connections now")
    expect(storeCauseInWords(wrapped({ cause: { code: "ECONNREFUSED", address: "127.0.0.1", port: 5433 } })))
      .toBe("PostgreSQL at 127.0.0.1:5433 refuses connections (is it running? AEON_DATABASE_URL)")
    expect(storeCauseInWords(wrapped({ code: "SQLITE_CONSTRAINT" }))).toBeUndefined()
    // the message a client sees: the operation and the cause, never the database's own text
    const e = storeError("creating run r1")(
      { message: "INSERT INTO runs … failed", cause: { code: "SQLITE_FULL" } } as never
    )
    expect(e.message).toBe(
      "the store failed while creating run r1: the disk holding the embedded database is full (free some space, or set AEON_DATA_DIR to another disk)"
    )
    expect(e.message).not.toContain("INSERT")
  })

  // a real full disk: a small tmpfs (mounting one needs root; elsewhere the unit cases above stand)
  const root = process.getuid?.() === 0
  it.skipIf(!root)("aeon run on a full disk says the disk is full and how to fix it", async (ctx) => {
    const mount = mkdtempSync(join(tmpdir(), "aeon-full-"))
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=200k", "tmpfs", mount])
    } catch {
      return ctx.skip() // no mount in this sandbox: reported skipped, the unit cases stand
    }
    try {
      writeFileSync(join(mount, "fill"), Buffer.alloc(150 * 1024))
      mkdirSync(join(mount, "data"))
      const cli = cliIn("aeon-full-cli-")
      cli.env.AEON_DATA_DIR = join(mount, "data")
      const r = await cli.aeon("run", "Compute 2 + 2")
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/the disk (holding the embedded database )?is full/)
      expect(r.stderr).not.toMatch(/SQLITE_|ENOSPC|INSERT|CREATE/)
    } finally {
      execFileSync("umount", [mount])
    }
  })
})
