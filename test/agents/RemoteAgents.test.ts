import { Effect, Layer, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import * as Agents from "../../src/agents/Agents.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Offline from "../../src/llm/Offline.js"
import * as Scripted from "../../src/llm/Scripted.js"
import { PromptId } from "../../src/prompts/PromptId.js"
import { prepare } from "../../src/run/Run.js"
import { gql, startServer, type TestServer } from "../support/server.js"

/**
 * A remote A2A agent as a tool (#72): a second Aeon, behind an API key, serves its agent `math` over A2A; this run's
 * `a2aAgents` entry names it with the key in its headers, and the plan calls `a2a.remote` through @a2a-js/sdk's client.
 */
let remote: TestServer
let base: string
beforeAll(async () => {
  remote = await startServer({ config: { apiKeys: Option.some(Redacted.make("key-alice:alice")) } })
  base = remote.url.replace(/\/graphql$/, "")
  await gql(
    remote.url,
    `mutation { saveAgent(input: { name: "math", tools: ["calculator"], mode: SIMPLE }) { version } }`,
    {},
    {
      authorization: "Bearer key-alice"
    }
  )
}, 60_000)
afterAll(() => remote?.stop())

const delegating = {
  output: {
    goal: "Ask the remote math desk",
    answer: "{{s1}}",
    steps: [{
      stepId: "s1",
      description: "Ask the remote agent",
      tool: "a2a.remote",
      toolInput: { task: "Compute 6 * 7" },
      dependencies: []
    }]
  }
}

const runWith = (entry: { readonly url: string; readonly headers?: Record<string, string> }) => {
  const model = Scripted.make({ [PromptId.PLAN_GENERATION_USER]: [delegating] }, Offline.service)
  const layer = Layer.provideMerge(
    Agents.layer({
      agents: { desk: { tools: ["a2a.remote"], mode: "FULL", memory: false } },
      a2aAgents: { remote: entry }
    }),
    Layer.mergeAll(Aeon.layerWithOwnTools(), Layer.succeed(LanguageModel, model.service))
  )
  return Effect.runPromise(
    Effect.gen(function*() {
      const p = yield* prepare({ agent: "desk", task: "What is 6 * 7?" })
      yield* p.execute
      return (yield* p.events.log).find((e) => e._tag === "ToolInvoked" && e.tool === "a2a.remote")
    }).pipe(Effect.provide(layer))
  )
}

describe("a remote A2A agent as a tool", () => {
  it("is called through @a2a-js/sdk with the entry's headers: its answer is the step's output, its task id said", async () => {
    const call = await runWith({ url: `${base}/a2a/agents/math/`, headers: { authorization: "Bearer key-alice" } })
    expect(call?._tag === "ToolInvoked" && call.error).toBeUndefined()
    expect(String(call?._tag === "ToolInvoked" && call.output)).toContain("42")
    const taskId = call?._tag === "ToolInvoked" ? call.remoteTaskId : undefined
    expect(taskId).toBeDefined()
    // the remote task is a run of the remote agent, its key's user's
    const run = await gql(remote.url, `query($id: ID!) { run(id: $id) { userId agent { name } } }`, { id: taskId }, {
      authorization: "Bearer key-alice"
    })
    expect(run.body.data.run).toEqual({ userId: "alice", agent: { name: "math" } })
  })

  it("a remote that refuses the call, or cannot be reached, is a coded step failure", async () => {
    const refused = await runWith({ url: `${base}/a2a/agents/math/` })
    expect(refused?._tag === "ToolInvoked" && refused.error).toContain("A2A_FAILED")
    const away = await runWith({ url: "http://127.0.0.1:9/a2a/agents/math/" })
    expect(away?._tag === "ToolInvoked" && away.error).toContain("A2A_FAILED")
  })
})
