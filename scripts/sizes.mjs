/* global console, process */
// Size rules of the code, checked by `npm run lint` (not by the test suite: they are about the code, not what it
// does): the kernel (Orchestrator + Executor + PassSteps) under 800 lines of code, and no function in src/ over 120 lines
// (generated code aside). Prints what breaks a rule and exits 1.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"

const KERNEL = ["src/kernel/Orchestrator.ts", "src/kernel/Executor.ts", "src/kernel/PassSteps.ts"]
const KERNEL_MAX = 800
const FUNCTION_MAX = 120

const codeLines = (text) => text.split("\n").filter((l) => l.trim() !== "" && !/^\s*(\/\/|\/\*|\*)/.test(l)).length

const files = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === "generated" ? [] : files(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })

/** Functions (declarations, arrows, methods) longer than the limit, with where they start. */
const longFunctions = (path) => {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true)
  const found = []
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
      if (end - start + 1 > FUNCTION_MAX) found.push(`${path}:${start + 1} ${end - start + 1} lines`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const problems = []
const kernel = KERNEL.reduce((n, f) => n + codeLines(readFileSync(f, "utf8")), 0)
if (kernel >= KERNEL_MAX) {
  problems.push(`the kernel (${KERNEL.join(" + ")}) has ${kernel} lines of code (limit ${KERNEL_MAX})`)
}
for (const f of files("src")) {
  for (const long of longFunctions(f)) problems.push(`function over ${FUNCTION_MAX} lines: ${long}`)
}
if (problems.length > 0) {
  for (const p of problems) console.error(p)
  process.exit(1)
}
console.log(`sizes: kernel ${kernel} lines of code (< ${KERNEL_MAX}); no function over ${FUNCTION_MAX} lines`)
