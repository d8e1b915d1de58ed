import { Effect, Layer, Option } from "effect"
import { memoizeWeak } from "../support/Memoize.js"
import * as ToolRegistry from "../tools/ToolRegistry.js"
import * as McpConfig from "./McpConfig.js"
import * as Servers from "./Servers.js"

export { McpConfigError } from "./McpConfig.js"
export type { McpConfig } from "./McpConfig.js"
export { McpServers, type ServerHealth } from "./Servers.js"

/** Every tool a run may call: the built-in ones, yours, then the MCP servers' as they are now. */
const registryLayer = (tools: ReadonlyArray<ToolRegistry.Tool>) =>
  Layer.effect(
    ToolRegistry.ToolRegistry,
    Effect.map(Servers.McpServers, (servers) => {
      const own = [...ToolRegistry.builtinTools, ...tools]
      const taken = new Set(own.map((t) => t.name))
      // a server's tool named like one of Aeon's own is left out: Aeon's own keeps its name
      const withOwn = memoizeWeak((mcp: ReadonlyArray<ToolRegistry.Tool>) => [
        ...own,
        ...mcp.filter((t) => !taken.has(t.name))
      ])
      return ToolRegistry.makeDynamic(() => withOwn(servers.tools()))
    })
  )

/**
 * The servers of `config` connected while the Layer lives, their tools in the `ToolRegistry` beside the built-in
 * ones and `tools` (yours). Settings not given come from the environment (`AEON_MCP_*`, with defaults).
 */
export const layer = (
  config: McpConfig.McpConfig,
  options: { readonly tools?: ReadonlyArray<ToolRegistry.Tool>; readonly settings?: Partial<McpConfig.Settings> } = {}
): Layer.Layer<ToolRegistry.ToolRegistry | Servers.McpServers, McpConfig.McpConfigError> =>
  registryLayer(options.tools ?? []).pipe(
    Layer.provideMerge(
      Layer.unwrapEffect(
        Effect.gen(function*() {
          const settings = yield* McpConfig.settings.pipe(
            Effect.mapError((e) => new McpConfig.McpConfigError({ message: String(e) }))
          )
          // the SDK is loaded only where a server is configured
          const { layer } = yield* Effect.promise(() => import("./McpServers.js"))
          return layer(config, { ...settings, ...options.settings })
        })
      )
    )
  )

/** No MCP server: the registry of the built-in tools and `tools`, and a `McpServers` with none. */
export const layerNone = (tools: ReadonlyArray<ToolRegistry.Tool> = []) =>
  Layer.merge(
    ToolRegistry.layer(tools),
    Layer.succeed(Servers.McpServers, Servers.none)
  )

/** The servers of a configuration file (`file`, else `AEON_MCP_CONFIG`); none when neither names one. */
export const layerFile = (file: string | undefined, tools: ReadonlyArray<ToolRegistry.Tool> = []) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const chosen = file ?? Option.getOrUndefined(yield* McpConfig.configFile.pipe(Effect.orDie))
      if (chosen === undefined) return layerNone(tools)
      return layer(yield* McpConfig.load(chosen), { tools })
    })
  )
