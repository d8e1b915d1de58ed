import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { documentation } from "../support/docs.js"

const readme = readFileSync("README.md", "utf8")

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
    const section = readme.slice(readme.indexOf("## Library"))
    const start = section.indexOf("```ts\n") + 6
    const example = section.slice(start, section.indexOf("\n```", start))
    expect(example).toContain("runTask(")
    // the example as the README shows it, its package import pointed at the sources
    const file = join("test", "docs", `.readme-example-${process.pid}.ts`)
    writeFileSync(file, example.replace(/from "aeon"/g, `from "../../src/index.js"`))
    const printed: Array<unknown> = []
    const log = vi.spyOn(console, "log").mockImplementation((...args) => void printed.push(args))
    try {
      await import(resolve(file))
    } finally {
      log.mockRestore()
      rmSync(file, { force: true })
    }
    const [status, answer] = printed[0] as [string, string]
    expect(status).toBe("CONVERGED")
    expect(answer).toContain("4")
  })

  it("the typed results example runs after the library example, its data typed and valid", async () => {
    const section = readme.slice(readme.indexOf("## Library"))
    const block = (from: number) => {
      const start = section.indexOf("```ts\n", from) + 6
      return section.slice(start, section.indexOf("\n```", start))
    }
    const example = block(0)
    const typed = block(section.indexOf("### Typed results"))
    expect(typed).toContain("output: Sum")
    const file = join("test", "docs", `.readme-typed-${process.pid}.ts`)
    writeFileSync(file, `${example}\n${typed}`.replace(/from "aeon"/g, `from "../../src/index.js"`))
    const printed: Array<unknown> = []
    const log = vi.spyOn(console, "log").mockImplementation((...args) => void printed.push(args))
    try {
      await import(resolve(file))
    } finally {
      log.mockRestore()
      rmSync(file, { force: true })
    }
    const [status, data] = printed[1] as [string, { sum: unknown; terms: unknown }]
    expect(status).toBe("CONVERGED")
    expect(typeof data.sum).toBe("number")
    expect(Array.isArray(data.terms)).toBe(true)
  })
})
