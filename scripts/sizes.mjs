/* global console, process */
// Size rules of the code, checked by `npm run lint` (not by the test suite: they are about the code, not what it
// does): the kernel (Orchestrator + AnswerAtStop + Executor + PassSteps) under 800 lines of code, no function in src/ over 80 lines,
// and type assertions (`as T` other than `as const`) at most CASTS_MAX — a ceiling lowered as casts go, never raised
// (generated code aside). Prints what breaks a rule and exits 1; `node scripts/sizes.mjs --casts` lists the casts.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"

const KERNEL = [
  "src/kernel/Orchestrator.ts",
  "src/kernel/AnswerAtStop.ts",
  "src/kernel/Executor.ts",
  "src/kernel/PassSteps.ts"
]
const KERNEL_MAX = 800
const FUNCTION_MAX = 80
const CASTS_MAX = 88

const codeLines = (text) => text.split("\n").filter((l) => l.trim() !== "" && !/^\s*(\/\/|\/\*|\*)/.test(l)).length

const files = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === "generated" ? [] : files(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })

/** Functions (declarations, arrows, methods) longer than the limit, and type assertions, with where they are. */
const findings = (path) => {
  const kind = path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true, kind)
  const lineOf = (node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1
  const long = []
  const casts = []
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line + 2 - lineOf(node)
      if (lines > FUNCTION_MAX) long.push(`${path}:${lineOf(node)} ${lines} lines`)
    }
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && node.type.getText(source) !== "const") {
      casts.push(`${path}:${lineOf(node)} as ${node.type.getText(source).replace(/\s+/g, " ")}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return { long, casts }
}

const problems = []
const kernel = KERNEL.reduce((n, f) => n + codeLines(readFileSync(f, "utf8")), 0)
if (kernel >= KERNEL_MAX) {
  problems.push(`the kernel (${KERNEL.join(" + ")}) has ${kernel} lines of code (limit ${KERNEL_MAX})`)
}
const casts = []
for (const f of files("src")) {
  const found = findings(f)
  for (const long of found.long) problems.push(`function over ${FUNCTION_MAX} lines: ${long}`)
  casts.push(...found.casts)
}
if (process.argv.includes("--casts")) { for (const c of casts) console.log(c) }
if (casts.length > CASTS_MAX) {
  problems.push(
    `${casts.length} type assertions in src/ (ceiling ${CASTS_MAX}; \`node scripts/sizes.mjs --casts\` lists them)`
  )
}
if (problems.length > 0) {
  for (const p of problems) console.error(p)
  process.exit(1)
}
console.log(
  `sizes: kernel ${kernel} lines of code (< ${KERNEL_MAX}); no function over ${FUNCTION_MAX} lines; ` +
    `${casts.length} type assertions (ceiling ${CASTS_MAX})`
)
