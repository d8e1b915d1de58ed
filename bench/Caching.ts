import { Effect, Layer, Schema } from "effect"
import * as Aeon from "../src/Aeon.js"
import * as Anthropic from "../src/llm/Anthropic.js"
import { LanguageModel } from "../src/llm/LanguageModel.js"
import { runTask } from "../src/run/Run.js"
import * as ToolRegistry from "../src/tools/ToolRegistry.js"
import { startAnthropicStub } from "../test/support/AnthropicStub.js"
import { byPrompt, promptOfMessages } from "../test/support/stubAnswers.js"

/**
 * FULL runs' input cost on Claude with prompt caching against without (#57): one run, then five different tasks in a
 * row, with a 30-tool catalog, through Aeon's Anthropic provider against the Messages API stub
 * (test/support/AnthropicStub: the API's caching rules and 1,024-token minimum, its own token count), once with caching
 * and once on a server that caches nothing; claude-sonnet-4-5's prices (read 0.1×, write 1.25×). Where the saving comes
 * from: the input tokens read from the cache, by prompt.
 */
const TASKS = [
  "Compute (17 + 25) * 3 and explain the result",
  "Compute 6 * 7",
  "What is 120 / 8?",
  "Compute 2 ** 10 and say what it means",
  "Add 1234 and 4321"
]

/** A catalog of 30 tools (~1,300 tokens of entries): the prefix every plan prompt with these tools shares. */
const catalog = Array.from({ length: 30 }, (_, i) =>
  ToolRegistry.tool({
    name: `fleet.vehicle_${i}_status`,
    description: `Reads the live status of vehicle ${i} of the delivery fleet: its position, its load, its next stop ` +
      `and its driver's hours, as the dispatch system has them now.`,
    input: Schema.Struct({ vehicle: Schema.String, detail: Schema.optional(Schema.Literal("brief", "full")) }),
    output: Schema.Struct({ status: Schema.String }),
    timeoutMs: 1_000,
    idempotent: true,
    run: () => Effect.succeed({ status: "ok" })
  }))

const runs = async (caching: boolean, minCacheTokens: number, tasks: ReadonlyArray<string>) => {
  const stub = await startAnthropicStub({ caching, minCacheTokens })
  stub.replyWith((body) => ({ text: JSON.stringify(byPrompt[promptOfMessages(body) ?? ""] ?? {}) }))
  const model = Anthropic.make({
    baseURL: stub.baseURL,
    apiKey: "bench",
    model: "claude-sonnet-4-5",
    timeoutMs: 30_000,
    maxRetries: 0
  })
  try {
    let input = 0
    let costUsd = 0
    for (const task of tasks) {
      const result = await Effect.runPromise(
        runTask({ task, mode: "FULL", memory: false }).pipe(
          Effect.provide(Layer.mergeAll(Aeon.layerWithTools(catalog), Layer.succeed(LanguageModel, model)))
        )
      )
      input += result.usage.inputTokens
      costUsd += result.usage.costUsd
    }
    const byPromptRead: Record<string, number> = {}
    stub.requests.forEach((body, i) => {
      const p = promptOfMessages(body) ?? "?"
      byPromptRead[p] = (byPromptRead[p] ?? 0) + stub.bills[i]!.cacheRead
    })
    return {
      calls: stub.requests.length,
      input,
      cacheRead: stub.bills.reduce((n, b) => n + b.cacheRead, 0),
      cacheWrite: stub.bills.reduce((n, b) => n + b.cacheWrite, 0),
      costUsd,
      byPromptRead
    }
  } finally {
    await stub.close()
  }
}

export const caching = async () => ({
  // one FULL run, then five in a row with the same tools; Sonnet's minimum cacheable prefix (1,024 tokens)
  one: { cached: await runs(true, 1024, TASKS.slice(0, 1)), uncached: await runs(false, 1024, TASKS.slice(0, 1)) },
  five: { cached: await runs(true, 1024, TASKS), uncached: await runs(false, 1024, TASKS) }
})
