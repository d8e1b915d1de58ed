import { tool } from "@langchain/core/tools"
import { createReactAgent } from "@langchain/langgraph/prebuilt"
import { ChatOpenAI } from "@langchain/openai"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect, Layer } from "effect"
import { countTokens } from "gpt-tokenizer/encoding/cl100k_base"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Aeon from "../src/Aeon.js"
import { LanguageModel } from "../src/llm/LanguageModel.js"
import * as OpenAi from "../src/llm/OpenAi.js"
import { runTask } from "../src/run/Run.js"
import { billedTokens, billingStub } from "./support.js"

/**
 * Plan-request tokens against catalog size (#58): one MCP server (test/support/mcp-servers/catalog.mjs, the official
 * SDK over stdio) with 10, 100, 400 and 1,000 generated tools; the task "Use the weather forecast tool to get the
 * forecast for Lisbon" through Aeon AUTO and through LangGraph's createReactAgent given the same tools (from the
 * server's tools/list, as LangChain tools with their JSON Schemas). A local stub bills each request as a provider does
 * (cl100k over messages, tools and response_format): the first request of each is its planning one.
 */
const SERVER = fileURLToPath(new URL("../test/support/mcp-servers/catalog.mjs", import.meta.url))
const TASK = "Use the weather forecast tool to get the forecast for Lisbon"

const billed = (body: any) => billedTokens(countTokens, body)

/** Aeon's answers for the weather task (a plan using the tool it was shown), ReAct's final answer at once. */
const answerOf = (body: any): string => {
  if (body.tools) return "Sunny, 24 °C in Lisbon."
  const prompt = body.response_format?.json_schema?.name ?? ""
  const user: string = body.messages?.[1]?.content ?? ""
  if (prompt === "plan_generation_user") {
    const name = user.match(/catalog\.weather_forecast/)?.[0] ?? "catalog.weather_forecast"
    return JSON.stringify({ steps: [{ stepId: "s1", tool: name, toolInput: { city: "Lisbon" } }], answer: "{{s1}}" })
  }
  if (prompt === "reasoning_step_user") {
    return JSON.stringify({ stepOutput: "The forecast for Lisbon: sunny", clarityState: "CLEAR", handoffToNext: "" })
  }
  return JSON.stringify({})
}

const startStub = () => billingStub(answerOf, billed, countTokens)

const aeonPlanTokens = async (stub: Awaited<ReturnType<typeof startStub>>, size: number) => {
  const dir = mkdtempSync(join(tmpdir(), "aeon-catalog-bench-"))
  const file = join(dir, "mcp.json")
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { catalog: { command: process.execPath, args: [SERVER], env: { CATALOG_SIZE: String(size) } } }
    })
  )
  const model = OpenAi.make({
    baseURL: stub.baseURL,
    apiKey: "bench",
    model: "gpt-4o-mini",
    timeoutMs: 60_000,
    maxRetries: 0
  })
  stub.requests.length = 0
  await Effect.runPromise(
    runTask({ task: TASK, memory: false }).pipe(
      Effect.provide(Layer.mergeAll(Aeon.layerWithTools([], file), Layer.succeed(LanguageModel, model)))
    )
  )
  const plan = stub.requests.find((b) => b.response_format?.json_schema?.name === "plan_generation_user")
  return plan ? billed(plan) : 0
}

const reactFirstTokens = async (stub: Awaited<ReturnType<typeof startStub>>, size: number) => {
  const client = new Client({ name: "bench", version: "1.0.0" })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [SERVER], env: { CATALOG_SIZE: String(size) } })
  )
  try {
    const listed = (await client.listTools()).tools
    const tools = listed.map((t) =>
      tool(async (input: unknown) => JSON.stringify(input), {
        name: t.name,
        description: t.description ?? "",
        schema: t.inputSchema as any
      })
    )
    const llm = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "bench", configuration: { baseURL: stub.baseURL } })
    stub.requests.length = 0
    await createReactAgent({ llm, tools }).invoke({ messages: [{ role: "user", content: TASK }] })
    return billed(stub.requests[0])
  } finally {
    await client.close()
  }
}

export const catalogSizes = async (sizes: ReadonlyArray<number> = [10, 100, 400, 1_000]) => {
  const stub = await startStub()
  try {
    const rows: Array<{ size: number; aeon: number; react: number }> = []
    for (const size of sizes) {
      rows.push({ size, aeon: await aeonPlanTokens(stub, size), react: await reactFirstTokens(stub, size) })
    }
    return { rows }
  } finally {
    await stub.close()
  }
}
