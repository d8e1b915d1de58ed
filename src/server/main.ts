import { serve } from "./App.js"

/** `npm start`: the GraphQL server with GraphiQL, embedded database, offline model unless a provider is configured. */
const app = await serve()
const model = await app.runtime.runPromise((await import("../llm/LanguageModel.js")).LanguageModel)
console.log(`Aeon ${app.url} — GraphiQL in a browser; model: ${model.label}${model.label === "offline" ? " (rule-based stand-in, not a reasoning model)" : ""}`)
if (app.resumed > 0) console.log(`resumed ${app.resumed} unfinished run(s)`)
const shutdown = (signal: string) => {
  console.log(`${signal}: stopping (tool calls in progress finish; unfinished runs resume on the next start)`)
  const force = setTimeout(() => process.exit(1), 30_000)
  force.unref()
  app.stop().then(() => process.exit(0), (e) => { console.error(e); process.exit(1) })
}
process.once("SIGTERM", () => shutdown("SIGTERM"))
process.once("SIGINT", () => shutdown("SIGINT"))
