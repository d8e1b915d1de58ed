// The published manifest has no `prepare` script: it builds from src/ and scripts/, which the package does not ship,
// so npm would list a script the package cannot run. `npm pack` / `npm publish` run `prepack` (this file with
// `pack`: dist/ built when missing, then the script set aside as `_prepare`) and `postpack` (`restore`: put back),
// the pattern pinst uses for postinstall. A clone's `npm install` still builds through `prepare`. The manifest is
// replaced in one rename: a process reading it meanwhile (every `aeon` reads its version there) sees a whole file.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import process from "node:process"

const root = process.cwd()
const file = join(root, "package.json")
const text = readFileSync(file, "utf8")
const manifest = JSON.parse(text)
const packing = process.argv[2] === "pack"
if (packing && !existsSync(join(root, "dist/index.js"))) {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit", cwd: root })
}
const [from, to] = packing ? ["prepare", "_prepare"] : ["_prepare", "prepare"]
if (manifest.scripts?.[from] !== undefined) {
  // renamed in place: the key keeps its position, the file its formatting
  const next = `${file}.${process.pid}`
  writeFileSync(next, text.replace(`"${from}":`, `"${to}":`))
  renameSync(next, file)
}
