import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * What a user reads: the README and the pages of docs/ it links, as one text (the README is for a newcomer, the depth
 * lives in docs/; the documentation tests hold both to the code).
 */
export const documentation = (root = "."): string =>
  [
    readFileSync(join(root, "README.md"), "utf8"),
    ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) =>
      readFileSync(join(root, "docs", f), "utf8")
    )
  ].join("\n")
