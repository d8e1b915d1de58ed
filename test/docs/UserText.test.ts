import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === "generated" ? [] : sources(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })

/**
 * The design documents' requirement ids (FR-xxx, SC-xxx) are for the developers: comments may name them, text a user
 * sees (an advisory, an error, a message) does not (#43 item 6).
 */
describe("text a user sees", () => {
  it("names no requirement id of the design documents", () => {
    const found: Array<string> = []
    for (const file of sources("src")) {
      readFileSync(file, "utf8").split("\n").forEach((line, i) => {
        const code = line.trimStart()
        if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) return
        const beforeComment = line.includes(" // ") ? line.slice(0, line.indexOf(" // ")) : line
        if (/\b(FR|SC)-\d{3}\b/.test(beforeComment)) found.push(`${file}:${i + 1}: ${code}`)
      })
    }
    expect(found).toEqual([])
  })
})
