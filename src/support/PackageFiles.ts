import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The package's own folder: the nearest folder above this module holding package.json. The same from the
 * sources (src/), the compiled library (dist/) and the bundled CLI, whose files sit at other depths.
 */
const packageRoot = (() => {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir)
  return dir
})()

/** A file shipped with the package (package.json, schema.graphql), read as text. */
export const readPackageFile = (name: string): string => readFileSync(join(packageRoot, name), "utf8")

/** The package's version. */
export const version: string = JSON.parse(readPackageFile("package.json")).version
