import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

const engine = JSON.parse(readFileSync("package.json", "utf8"))
const cli = JSON.parse(readFileSync("packages/cli/package.json", "utf8"))

/**
 * The two published packages (#76 items 1 and 8): names of our own, the CLI package pinned to the engine of the same
 * version, and every package the library leaves optional installed with the CLI or bundled into it.
 */
describe("the packages' manifests", () => {
  it("aeon-engine and aeon-engine-cli, one version, the aeon bin in both", () => {
    expect(engine.name).toBe("aeon-engine")
    expect(cli.name).toBe("aeon-engine-cli")
    expect(cli.version).toBe(engine.version)
    expect(cli.dependencies["aeon-engine"]).toBe(engine.version)
    expect(Object.keys(engine.bin)).toEqual(["aeon"])
    expect(Object.keys(cli.bin)).toEqual(["aeon"])
  })

  it("each optional peer of the library is marked optional, and in the clone's dev dependencies", () => {
    const optional = Object.keys(engine.peerDependenciesMeta)
    expect(optional).toContain("better-sqlite3")
    for (const name of optional) {
      expect(engine.peerDependencies[name], name).toBeDefined()
      expect(engine.devDependencies[name], name).toBe(engine.peerDependencies[name])
    }
    // the packages the bundled CLI loads at run time, outside its bundle, come with the CLI package
    for (const name of ["better-sqlite3", "@graphql-yoga/render-graphiql"]) {
      expect(cli.dependencies[name], name).toBe(engine.peerDependencies[name])
    }
  })
})
