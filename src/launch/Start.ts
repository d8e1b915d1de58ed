import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import type { ClusterConfig } from "../cluster/ClusterConfig.js"
import { LanguageModel } from "../llm/LanguageModel.js"
import { McpServers, none } from "../mcp/Servers.js"
import { GraphQLServer } from "../server/Server.js"
import * as Database from "../store/Database.js"
import * as ServerAddress from "../store/ServerAddress.js"
import { layer, Resumed, type ServerConfig } from "./App.js"

/** The start-up lines: where the server listens, the model, how many runs it took up. */
const banner = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* GraphQLServer
  const model = yield* LanguageModel
  const resumed = yield* Resumed
  const stand = model.label === "offline" ? " (rule-based stand-in, not a reasoning model)" : ""
  const mcp = Option.getOrElse(yield* Effect.serviceOption(McpServers), () => none)
  yield* Effect.sync(() => {
    const runs = server.url.replace(/\/graphql$/, "/runs")
    console.log(`Aeon ${server.url} — GraphiQL in a browser; the run viewer at ${runs}; model: ${model.label}${stand}`)
    const base = server.url.replace(/\/graphql$/, "")
    console.log(
      `also: ${base}/mcp (MCP), ${base}/v1 (OpenAI-compatible), ${base}/ag-ui (AG-UI), ${base}/api/chat (AI SDK UI stream), ${base}/a2a (A2A)`
    )
    for (const s of mcp.health()) {
      console.log(
        `MCP server ${s.name}: ${s.status}${s.status === "connected" ? `, ${s.toolCount} tool(s)` : ""}${
          s.lastError ? ` (${s.lastError})` : ""
        }`
      )
    }
    if (resumed > 0) console.log(`resumed ${resumed} unfinished run(s)`)
  })
}))

/** On the embedded store, the server's address beside the data directory's lock, for the CLI there (store/ServerAddress). */
const published = Layer.scopedDiscard(Effect.gen(function*() {
  const server = yield* GraphQLServer
  const { dataDir, url } = yield* Database.databaseConfig
  if (Option.isNone(url) && dataDir !== "memory") yield* ServerAddress.publish(dataDir, server.url)
}))

/**
 * Serves until SIGTERM or SIGINT (`npm start`, `aeon serve`): the server's Layer, launched. On a signal the launch is
 * interrupted and the layer released: no new runs, tool calls in progress finish, what runs emitted is stored, the
 * server closes, exit 0. A failure to start is one line on stderr (a second with what the database said, when a
 * statement of its failed and its words add to the first) and exit code 1.
 */
export const serveUntilSignal = (
  overrides: Partial<ServerConfig> & { readonly mcpConfig?: string | undefined } = {},
  cluster: Partial<ClusterConfig> = {}
) => {
  let signalled = false
  const stopping = (signal: string) => {
    if (signalled) return
    signalled = true
    console.log(`${signal}: stopping (tool calls in progress finish; unfinished runs resume on the next start)`)
    const force = setTimeout(() => process.exit(1), 30_000)
    force.unref()
  }
  // said before runMain's own handlers interrupt the launch
  process.once("SIGTERM", () => stopping("SIGTERM"))
  process.once("SIGINT", () => stopping("SIGINT"))
  NodeRuntime.runMain(Layer.launch(Layer.merge(banner, published).pipe(Layer.provide(layer(overrides, { cluster })))), {
    disableErrorReporting: true,
    teardown: (exit, onExit) => {
      if (Exit.isSuccess(exit) || (signalled && Cause.isInterruptedOnly(exit.cause))) return onExit(0)
      const failure = startFailure(exit.cause)
      process.stderr.write(`aeon: ${signalled ? "" : "the server could not start: "}${failure}\n`)
      // a database failure's own words go to the operator's log, as the store's failures do (never to an API client)
      const detail = databaseDetail(exit.cause)
      if (detail && !failure.includes(detail)) process.stderr.write(`aeon: the database said: ${detail}\n`)
      onExit(1)
    }
  })
}

/** What the database itself said, when a start-up failure comes from one of its statements (an SqlError, maybe wrapped). */
const databaseDetail = (cause: Cause.Cause<unknown>): string | undefined => {
  type Wrapped = { readonly _tag?: unknown; readonly cause?: Wrapped; readonly message?: unknown } | undefined
  let e = Cause.squash(cause) as Wrapped
  for (let depth = 0; e && depth < 4; depth++, e = e.cause) {
    if (e._tag === "SqlError" && typeof e.cause?.message === "string") return e.cause.message.split("\n")[0]
  }
  return undefined
}

/** The message of what went wrong, without Effect's wrapping or a stack. */
const startFailure = (cause: Cause.Cause<unknown>): string => {
  const e = Cause.squash(cause)
  const message = e instanceof Error
    ? e.message
    : typeof e === "object" && e && "message" in e
    ? String(e.message)
    : String(e)
  return (message.split("\n")[0] ?? "").replace(/^\(FiberFailure\) /, "").replace(/^\w*Error: /, "")
}
