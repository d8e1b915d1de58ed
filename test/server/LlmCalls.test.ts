import { describe, expect, it } from "vitest"
import { awaitRun, gql, startServer } from "../support/server.js"

const README_TASK = "Compute (17 + 25) * 3 and explain the result"
const finished = (url: string, id: string) =>
  awaitRun(url, id, { query: `query($id: ID!) { run(id: $id) { status usage { llmCalls } } }` })
const CALLS = `query($id: ID!, $after: String) { run(id: $id) { llmCalls(first: 3, after: $after) {
  edges { cursor node { seq promptId model attempt passNumber phase stepId system user response finishReason output decodeError inputTokens outputTokens } }
  pageInfo { endCursor hasNextPage } } } }`

describe("recorded model calls (#18.1)", () => {
  it("run.llmCalls returns the prompts and answers of the README's example, paged, with where each was made", async () => {
    const server = await startServer()
    try {
      const id =
        (await gql(server.url, `mutation { runTask(input: { task: "${README_TASK}", mode: FULL }) { id } }`)).body
          .data.runTask.id
      const run = await finished(server.url, id)
      const all: Array<any> = []
      let after: string | null = null
      for (;;) {
        const page: any = (await gql(server.url, CALLS, { id, after })).body.data.run.llmCalls
        all.push(...page.edges.map((e: any) => e.node))
        if (!page.pageInfo.hasNextPage) break
        after = page.pageInfo.endCursor
      }
      expect(all).toHaveLength(run.usage.llmCalls)
      expect(all.map((c) => c.seq)).toEqual([...all.map((c) => c.seq)].sort((a, b) => a - b))
      const plan = all.find((c) => c.promptId === "plan_generation_user")
      expect(plan).toMatchObject({ model: "offline", attempt: 1, passNumber: 0, phase: "PLAN", finishReason: "stop" })
      expect(plan.user).toContain(README_TASK)
      expect(plan.system).toContain("Plan the task as a few concrete steps")
      expect(JSON.parse(plan.response).steps[0].toolInput).toEqual({ expression: "(17 + 25) * 3" })
      expect(plan.output.steps[0].stepId).toBe("s1")
      const step = all.find((c) => c.promptId === "reasoning_step_user")
      expect(step).toMatchObject({ phase: "EXECUTE", stepId: "s1" })
      expect(step.user).toContain("126")
      expect(all.find((c) => c.promptId === "answer_synthesis_user")?.phase).toBe("ANSWER")
      // the events say a call was recorded; their payload does not carry the prompts
      const events = (await gql(
        server.url,
        `query($id: ID!) { run(id: $id) { events { type payload ... on LlmCalledEvent { recorded } } } }`,
        { id }
      ))
        .body.data.run.events.filter((e: any) => e.type === "LlmCalled")
      expect(events.every((e: any) => e.recorded === true && e.payload.call === undefined)).toBe(true)
      const bad = await gql(server.url, CALLS, { id, after: "nope" })
      expect(bad.body.errors?.[0]?.extensions?.code).toBe("InvalidRunInputError")
    } finally {
      await server.stop()
    }
  })

  it("AEON_RECORD_PROMPTS=0: no prompt is kept; the calls are still counted", async () => {
    const before = process.env.AEON_RECORD_PROMPTS
    process.env.AEON_RECORD_PROMPTS = "0"
    const { Layer } = await import("effect")
    const Aeon = await import("../../src/Aeon.js")
    const Offline = await import("../../src/llm/Offline.js")
    const { serve } = await import("../../src/launch/App.js")
    const Database = await import("../../src/store/Database.js")
    const { recordingLayerConfig } = await import("../../src/kernel/RunLlm.js")
    const server = await serve({ port: 0, host: "127.0.0.1" }, {
      engine: Layer.mergeAll(Aeon.layerWithTools(), Offline.layer, recordingLayerConfig),
      database: Database.layer({ dataDir: "memory" })
    })
    try {
      const id =
        (await gql(server.url, `mutation { runTask(input: { task: "${README_TASK}", mode: FULL }) { id } }`)).body
          .data.runTask.id
      const run = await finished(server.url, id)
      expect(run.usage.llmCalls).toBeGreaterThan(0)
      expect((await gql(server.url, CALLS, { id })).body.data.run.llmCalls.edges).toEqual([])
    } finally {
      await server.stop()
      if (before === undefined) delete process.env.AEON_RECORD_PROMPTS
      else process.env.AEON_RECORD_PROMPTS = before
    }
  })
})
