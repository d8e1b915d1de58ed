import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Data, Deferred, Duration, Effect, Fiber, Layer, Ref, Schedule } from "effect"
import { recordOf } from "../support/Fields.js"
import { memoizeWeak } from "../support/Memoize.js"
import { optionalPackage } from "../support/OptionalPackage.js"
import { version } from "../support/PackageFiles.js"
import { McpServerUnavailableError, type Tool, ToolFailedError, ToolTimeoutError } from "../tools/ToolRegistry.js"
import { isStdio, type McpConfig, type ServerEntry, type Settings } from "./McpConfig.js"
import { type McpCallResult, type McpToolDefinition, toTool } from "./McpTools.js"
import { McpServers, type ServerHealth, type Service } from "./Servers.js"

interface ServerState {
  readonly health: ServerHealth
  readonly tools: ReadonlyArray<Tool>
}

/** Every server's state by name: one Ref, so the tools of all of them are one value, derived once per change. */
type States = Readonly<Record<string, ServerState>>

class ConnectError extends Data.TaggedError("ConnectError")<{ readonly message: string }> {}

/** MCP's SDK, loaded when a configuration names a server: an optional peer of the published package. */
type Sdk = typeof import("./McpSdk.js")
const loadSdk = optionalPackage(
  "@modelcontextprotocol/sdk",
  "MCP servers (--mcp, AEON_MCP_CONFIG)",
  () => import("./McpSdk.js")
)

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** The transports to try, in order: stdio for a command; Streamable HTTP, then the older SSE, for a URL. */
const transports = (
  sdk: Sdk,
  entry: ServerEntry
): ReadonlyArray<readonly [ServerHealth["transport"], () => Transport]> => {
  if (isStdio(entry)) {
    return [[
      "stdio",
      () =>
        new sdk.StdioClientTransport({
          command: entry.command,
          args: [...entry.args],
          env: { ...sdk.getDefaultEnvironment(), ...entry.env },
          ...(entry.cwd ? { cwd: entry.cwd } : {}),
          // the child's stderr is its log: kept out of Aeon's own output
          stderr: "ignore"
        })
    ]]
  }
  const url = new URL(entry.url)
  const requestInit = entry.headers ? { headers: { ...entry.headers } } : undefined
  return [
    ["streamable-http", () => new sdk.StreamableHTTPClientTransport(url, requestInit ? { requestInit } : undefined)],
    ["sse", () => new sdk.SSEClientTransport(url, requestInit ? { requestInit } : undefined)]
  ]
}

/** Every page of `tools/list`. */
const listTools = async (client: Client): Promise<Array<McpToolDefinition>> => {
  const tools: Array<McpToolDefinition> = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined)
    tools.push(...(page.tools as Array<McpToolDefinition>))
    cursor = page.nextCursor
  } while (cursor)
  return tools
}

/** One connection attempt, transport after transport; the client, how it connected, and a signal of its end. */
const connectOnce = (sdk: Sdk, entry: ServerEntry, startTimeoutMs: number) =>
  Effect.gen(function*() {
    let lastError = "no transport"
    for (const [kind, make] of transports(sdk, entry)) {
      const client = new sdk.Client({ name: "aeon", version }, { capabilities: {} })
      const closed = yield* Deferred.make<void>()
      const attempt = yield* Effect.tryPromise({
        // interrupted by the timeout below: the half-made connection is closed
        try: (signal) => {
          signal.addEventListener("abort", () => void client.close().catch(() => {}))
          return client.connect(make())
        },
        catch: (e) => new ConnectError({ message: message(e) })
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(startTimeoutMs),
          onTimeout: () => new ConnectError({ message: `no answer to initialize within ${startTimeoutMs} ms` })
        }),
        Effect.either
      )
      if (attempt._tag === "Left") {
        lastError = attempt.left.message
        yield* Effect.promise(() => client.close().catch(() => {}))
        continue
      }
      client.onclose = () => Deferred.unsafeDone(closed, Effect.void)
      return { client, kind, closed }
    }
    return yield* new ConnectError({ message: lastError })
  })

const callWith = (sdk: Sdk, client: Client | undefined, server: string, timeoutMs: number) =>
(
  toolName: string,
  input: unknown,
  signal: AbortSignal
): Effect.Effect<McpCallResult, ToolFailedError | ToolTimeoutError | McpServerUnavailableError> => {
  const tool = `${server}.${toolName}`
  if (!client) {
    return Effect.fail(
      new McpServerUnavailableError({ tool, server, message: `MCP server ${server} is not connected` })
    )
  }
  return Effect.tryPromise({
    try: () =>
      client.callTool({ name: toolName, arguments: recordOf(input) ?? {} }, undefined, {
        signal,
        timeout: timeoutMs
      }) as Promise<McpCallResult>,
    catch: (e) => {
      const text = message(e)
      // the SDK rejects a call in flight with ConnectionClosed when the server goes; a transport that cannot reach it
      // fails with the network's own error
      const dropped = (e instanceof sdk.McpError && e.code === sdk.ErrorCode.ConnectionClosed) ||
        /^Not connected$|ECONNREFUSED|fetch failed|EPIPE/.test(text)
      // the SDK's own timeout of the request is the tool's timeout, said as Aeon's own is
      if (e instanceof sdk.McpError && e.code === sdk.ErrorCode.RequestTimeout) {
        return new ToolTimeoutError({ tool, timeoutMs })
      }
      return dropped
        ? new McpServerUnavailableError({ tool, server, message: `MCP server ${server} dropped the call: ${text}` })
        : new ToolFailedError({ tool, message: text })
    }
  })
}

/**
 * One server for the life of the scope: connected (the first attempt awaited, so a run started right after sees its
 * tools), its list kept fresh on `notifications/tools/list_changed`, reconnected with backoff when it exits or
 * drops its connection; closed with the scope (a stdio child is ended).
 */
const supervise = (sdk: Sdk, name: string, entry: ServerEntry, settings: Settings, states: Ref.Ref<States>) =>
  Effect.gen(function*() {
    const timeoutMs = entry.timeoutMs ?? settings.timeoutMs
    const startTimeoutMs = entry.startTimeoutMs ?? settings.startTimeoutMs
    const set = (f: (s: ServerState) => ServerState) => Ref.update(states, (all) => ({ ...all, [name]: f(all[name]!) }))

    const refresh = (client: Client) =>
      Effect.tryPromise(() => listTools(client)).pipe(
        Effect.map((defs) =>
          defs.map((d) =>
            toTool(d, {
              server: name,
              timeoutMs,
              maxResultBytes: settings.maxResultBytes,
              call: callWith(sdk, client, name, timeoutMs)
            })
          )
        ),
        Effect.flatMap((tools) => set((s) => ({ ...s, tools, health: { ...s.health, toolCount: tools.length } })))
      )
    const runtime = yield* Effect.runtime<never>()
    // the first attempt's end (connected or failed): the Layer is built once it is known
    const firstDone = yield* Deferred.make<void>()
    /** Connected, listed, then waiting until the connection ends; fails when it cannot connect. */
    const session = Effect.gen(function*() {
      const { client, closed, kind } = yield* connectOnce(sdk, entry, startTimeoutMs)
      yield* Effect.addFinalizer(() => Effect.promise(() => client.close().catch(() => {})))
      client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, async () => {
        await Effect.runPromiseExit(refresh(client).pipe(Effect.provide(runtime)))
      })
      yield* refresh(client).pipe(Effect.mapError((e) => new ConnectError({ message: message(e.error) })))
      yield* set((s) => ({ ...s, health: { ...s.health, transport: kind, status: "connected", lastError: undefined } }))
      yield* Deferred.succeed(firstDone, undefined)
      yield* Deferred.await(closed)
      // its tools go and its state says so (below), until it is connected again
      return yield* new ConnectError({ message: "the connection closed" })
    }).pipe(
      Effect.scoped,
      Effect.tapError((e) =>
        set((s) => ({
          tools: [],
          // never connected: failed (still retried); connected before: reconnecting
          health: {
            ...s.health,
            status: s.health.status === "connecting" || s.health.status === "failed" ? "failed" : "reconnecting",
            toolCount: 0,
            lastError: e.message
          }
        })).pipe(Effect.zipRight(Deferred.succeed(firstDone, undefined)))
      )
    )
    const fiber = yield* session.pipe(
      Effect.retry(Schedule.exponential("500 millis", 2).pipe(Schedule.union(Schedule.spaced("30 seconds")))),
      Effect.forkScoped
    )
    // the first attempt (connected or failed) before the Layer is built; a server that fails does not stop Aeon
    yield* Effect.race(Deferred.await(firstDone), Effect.sleep(Duration.millis(startTimeoutMs * 2 + 1_000)))
    return fiber
  })

const toolsOf = memoizeWeak((states: States) => Object.values(states).flatMap((s) => s.tools))

/** Every server of the configuration, supervised in the scope. */
export const make = (config: McpConfig, settings: Settings) =>
  Effect.gen(function*() {
    // in the configuration's order, each connecting
    const states = yield* Ref.make<States>(Object.fromEntries(
      Object.entries(config.mcpServers).map(([name, entry]) => [name, {
        health: {
          name,
          transport: isStdio(entry) ? "stdio" : "streamable-http",
          status: "connecting",
          toolCount: 0,
          lastError: undefined
        },
        tools: []
      }])
    ))
    const servers = Object.entries(config.mcpServers)
    // the SDK only when a server is named: a library user without MCP installs none of it
    const sdk = servers.length === 0 ? undefined : yield* Effect.orDie(loadSdk)
    const fibers = sdk === undefined ? [] : yield* Effect.forEach(
      servers,
      ([name, entry]) => supervise(sdk, name, entry, settings, states),
      { concurrency: "unbounded" }
    )
    yield* Effect.addFinalizer(() => Fiber.interruptAll(fibers))
    // read synchronously by the registry (a run's tools, a health query): the Ref's value as it is now
    const now = () => Effect.runSync(Ref.get(states))
    return {
      tools: () => toolsOf(now()),
      health: () => Object.values(now()).map((s) => s.health)
    } satisfies Service
  })

export const layer = (config: McpConfig, settings: Settings): Layer.Layer<McpServers> =>
  Layer.scoped(McpServers, make(config, settings))
