import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect, Layer, Ref } from "effect"
import { createRequire } from "node:module"
import * as Mcp from "../src/mcp/Mcp.js"
import { ToolRegistry } from "../src/tools/ToolRegistry.js"
import { percentile } from "./support.js"

const require = createRequire(import.meta.url)
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")

/**
 * Row 14: what an MCP tool call through Aeon (its registry: the input checked against the tool's JSON Schema, the
 * call, the result read and sized) adds over the same call made with the SDK's Client directly. Both sides call the
 * same tool of the reference server-everything, each over its own stdio connection, taking turns call by call so
 * that a slow moment of the machine falls on both.
 */
export const mcpCall = async (calls: number, warmup: number) => {
  const direct = new Client({ name: "bench", version: "1" })
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [everything, "stdio"] }))
  const program = Effect.gen(function*() {
    const tools = yield* ToolRegistry
    const context = { runId: "bench", memory: yield* Ref.make<ReadonlyMap<string, unknown>>(new Map()) }
    const viaAeon = () => Effect.runPromise(tools.invoke("ev.get-sum", { a: 2, b: 3 }, context))
    const viaSdk = () => direct.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } })
    const time = async (f: () => Promise<unknown>) => {
      const start = performance.now()
      await f()
      return performance.now() - start
    }
    const aeon: Array<number> = []
    const sdk: Array<number> = []
    for (let i = 0; i < warmup + calls; i++) {
      // the two sides take turns going first
      const first = i % 2 === 0 ? viaAeon : viaSdk
      const second = i % 2 === 0 ? viaSdk : viaAeon
      const t1 = yield* Effect.promise(() => time(first))
      const t2 = yield* Effect.promise(() => time(second))
      if (i < warmup) continue
      aeon.push(i % 2 === 0 ? t1 : t2)
      sdk.push(i % 2 === 0 ? t2 : t1)
    }
    return { aeon, sdk }
  })
  const { aeon, sdk } = await Effect.runPromise(
    Effect.scoped(
      Effect.provide(
        program,
        Layer.fresh(Mcp.layer({ mcpServers: { ev: { command: process.execPath, args: [everything, "stdio"] } } }))
      )
    )
  )
  await direct.close()
  const stats = (xs: Array<number>) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) })
  const a = stats(aeon)
  const s = stats(sdk)
  return { calls, aeon: a, sdk: s, overheadP50: a.p50 - s.p50, overheadP99: a.p99 - s.p99 }
}
