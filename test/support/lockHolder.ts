import { type ChildProcess, spawn } from "node:child_process"
import { resolve } from "node:path"

/**
 * Another process holding a data directory's lock through the real DataDirLock (the library build in dist/): it
 * prints "held" once it has the lock, "busy: <message>" if it could not take it, and holds it until killed.
 */
export const lockHolder = (dataDir: string): { readonly child: ChildProcess; readonly outcome: Promise<string> } => {
  const module = resolve("dist/store/DataDirLock.js")
  const script = `
    const { Effect } = await import("effect")
    const { acquire } = await import(${JSON.stringify(module)})
    await Effect.runPromise(Effect.scoped(Effect.zipRight(acquire(${JSON.stringify(dataDir)}),
      Effect.zipRight(Effect.sync(() => console.log("held")), Effect.never))))
      .catch((e) => console.log("busy: " + e.message))
  `
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  const outcome = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d
      if (out.includes("\n")) resolve(out.trim())
    })
    child.stderr!.on("data", (d) => (out += d))
    child.once("exit", (code) => reject(new Error(`the lock holder exited ${code}: ${out}`)))
  })
  outcome.catch(() => {})
  return { child, outcome }
}
