import { LanguageModel } from "../llm/LanguageModel.js"
import { serve, type ServerConfig } from "./App.js"

/**
 * Serves until SIGTERM or SIGINT (`npm start`, `aeon serve`): prints the URL and the model; on a signal, stops
 * accepting runs, lets tool calls in progress finish, stores what runs emitted, and exits. A failure to start
 * is one line on stderr and exit code 1.
 */
export const serveUntilSignal = async (overrides: Partial<ServerConfig> = {}) => {
  const app = await serve(overrides).catch((e: unknown) => {
    process.stderr.write(`aeon: the server could not start: ${startFailure(e)}\n`)
    process.exit(1)
  })
  const model = await app.runtime.runPromise(LanguageModel)
  const stand = model.label === "offline" ? " (rule-based stand-in, not a reasoning model)" : ""
  console.log(`Aeon ${app.url} — GraphiQL in a browser; model: ${model.label}${stand}`)
  if (app.resumed > 0) console.log(`resumed ${app.resumed} unfinished run(s)`)
  const shutdown = (signal: string) => {
    console.log(`${signal}: stopping (tool calls in progress finish; unfinished runs resume on the next start)`)
    const force = setTimeout(() => process.exit(1), 30_000)
    force.unref()
    app.stop().then(() => process.exit(0), (e) => {
      process.stderr.write(`aeon: ${startFailure(e)}\n`)
      process.exit(1)
    })
  }
  process.once("SIGTERM", () => shutdown("SIGTERM"))
  process.once("SIGINT", () => shutdown("SIGINT"))
  return app
}

/** The message of what went wrong, without Effect's FiberFailure wrapping or a stack. */
const startFailure = (e: unknown): string => {
  const message = e instanceof Error ? e.message : String(e)
  return message.split("\n")[0]!.replace(/^\(FiberFailure\) /, "").replace(/^\w*Error: /, "")
}
