import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { documentation } from "../support/docs.js"

const readme = readFileSync("README.md", "utf8")

const librarySection = () => readme.slice(readme.indexOf("## Library"))

/** The Library section's TypeScript block from `from` on. */
const libraryBlock = (from: number) => {
  const section = librarySection()
  const start = section.indexOf("```ts\n", from) + 6
  return section.slice(start, section.indexOf("\n```", start))
}

/** Runs README code as written, its package import pointed at the sources: what it logged. */
const runExample = async (name: string, code: string): Promise<Array<unknown>> => {
  const file = join("test", "docs", `.readme-${name}-${process.pid}.ts`)
  writeFileSync(file, code.replace(/from "aeon-engine"/g, `from "../../src/index.js"`))
  const printed: Array<unknown> = []
  const log = vi.spyOn(console, "log").mockImplementation((...args) => void printed.push(args))
  try {
    await import(resolve(file))
  } finally {
    log.mockRestore()
    rmSync(file, { force: true })
  }
  return printed
}

describe("README", () => {
  it("is for a newcomer: under 400 lines, the depth in docs/", () => {
    expect(readme.split("\n").length).toBeLessThan(400)
  })

  it("opens with the two set-up commands", () => {
    const top = readme.split("\n").slice(0, 6).join("\n")
    expect(top).toContain("npm install && npm start")
    expect(top).toContain("npm install && npm test")
  })

  it("documents every AEON_ setting the code reads (the README or docs/)", () => {
    const docs = documentation()
    const names = new Set<string>()
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f)
        if (statSync(p).isDirectory()) walk(p)
        else if (p.endsWith(".ts")) {
          for (const m of readFileSync(p, "utf8").matchAll(/"(AEON_[A-Z_]+)"/g)) names.add(m[1]!)
        }
      }
    }
    walk("src")
    expect(names.size).toBeGreaterThan(15)
    for (const n of names) expect(docs, n).toContain(`\`${n}\``)
  })

  it("the library example runs as written (against the sources; test/package runs it against the packed tarball)", async () => {
    const example = libraryBlock(0)
    expect(example).toContain("runTask(")
    const [status, answer] = (await runExample("example", example))[0] as [string, string]
    expect(status).toBe("CONVERGED")
    expect(answer).toContain("4")
  })

  it("the typed results example runs after the library example, its data typed and valid", async () => {
    const typed = libraryBlock(librarySection().indexOf("### Typed results"))
    expect(typed).toContain("output: Sum")
    const printed = await runExample("typed", `${libraryBlock(0)}\n${typed}`)
    const [status, data] = printed[1] as [string, { sum: unknown; terms: unknown }]
    expect(status).toBe("CONVERGED")
    expect(typeof data.sum).toBe("number")
    expect(Array.isArray(data.terms)).toBe(true)
  })

  it("the conversations example runs after the library example: two turns of one thread in a store", async () => {
    const thread = libraryBlock(librarySection().indexOf("### Conversations"))
    expect(thread).toContain(`threadId: "trip"`)
    const printed = await runExample("thread", `${libraryBlock(0)}\n${thread}`)
    expect(printed[1]).toEqual(["CONVERGED"])
  })
})
