import { ClientFactory } from "@a2a-js/sdk/client"
import { HttpAgent } from "@ag-ui/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Option, Redacted } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { userMessage } from "../support/a2a.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * Agents through the server (#72), against a provider stub that keeps every request: the operator's file, GraphQL,
 * `/v1` with the openai client, A2A cards with `@a2a-js/sdk`, and users' own agents.
 */
const MATH_INSTRUCTIONS = "You are the math desk: always show the arithmetic."
const DELEGATING_PLAN = {
  goal: "Have the math desk compute 6 * 7",
  answer: "{{s1}}",
  steps: [{
    stepId: "s1",
    description: "Ask the math agent",
    tool: "agent.math",
    toolInput: { task: "Compute 6 * 7" },
    dependencies: []
  }]
}
let stub: OpenAiStub
let app: TestServer
const env: Record<string, string | undefined> = {}
const setEnv = (vars: Record<string, string>) => {
  for (const [k, v] of Object.entries(vars)) {
    env[k] = process.env[k]
    process.env[k] = v
  }
}

beforeAll(async () => {
  stub = await startOpenAiStub()
  // the desk's plan hands its one step to the math agent; every other plan is the usual calculator plan
  stub.replyWith((body) => {
    const prompt = promptOfRequest(body) ?? ""
    const delegates = prompt === "plan_generation_user" && body.model === "gpt-desk"
    return { content: JSON.stringify(delegates ? DELEGATING_PLAN : byPrompt[prompt] ?? {}) }
  })
  const dir = mkdtempSync(join(tmpdir(), "aeon-agents-"))
  const file = join(dir, "agents.json")
  writeFileSync(
    file,
    JSON.stringify({
      agents: {
        math: {
          description: "Arithmetic with the calculator",
          instructions: MATH_INSTRUCTIONS,
          tools: ["calculator"],
          model: { provider: "openai", model: "gpt-math" },
          mode: "FULL",
          budget: { maxLlmCalls: 40 },
          memory: false
        },
        desk: {
          description: "Hands arithmetic to the math desk",
          tools: ["agent:math"],
          model: { provider: "openai", model: "gpt-desk" },
          mode: "FULL",
          memory: false
        }
      }
    })
  )
  // the agent's model is built as AEON_MODELS builds one: the provider's settings from the environment
  setEnv({ AEON_AGENTS: file, AEON_LLM_BASE_URL: stub.baseURL, AEON_LLM_API_KEY: "k" })
  app = await startServer({ model: stubModel(stub) })
})
afterAll(async () => {
  await app?.close()
  await stub?.close()
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
})

const start = (input: Record<string, unknown>, headers: Record<string, string> = {}, url = app.url) =>
  gql(
    url,
    `mutation($input: RunTaskInput!) { runTask(input: $input) { id agent { name version } } }`,
    { input },
    headers
  )

const runCount = async () =>
  (await gql(app.url, `{ runs(first: 100) { edges { node { id } } } }`)).body.data.runs.edges.length

describe("agents on the server", () => {
  it("the operator's file is version 1; its runs use its model, instructions and tools, and record it", async () => {
    const listed = await gql(app.url, `{ agents { name version description tools model { provider model } } }`)
    expect(listed.body.data.agents.map((a: any) => a.name)).toEqual(["desk", "math"])
    expect(listed.body.data.agents[1]).toEqual({
      name: "math",
      version: 1,
      description: "Arithmetic with the calculator",
      tools: ["calculator"],
      model: { provider: "openai", model: "gpt-math" }
    })
    stub.requests.length = 0
    const started = await start({ agent: "math", task: "Compute 6 * 7" })
    expect(started.body.data.runTask.agent).toEqual({ name: "math", version: 1 })
    const id = started.body.data.runTask.id
    await awaitRun(app.url, id)
    expect(stub.requests.length).toBeGreaterThan(0)
    expect(stub.requests.every((r) => r.model === "gpt-math")).toBe(true)
    const plan = stub.requests.find((r) => promptOfRequest(r) === "plan_generation_user")
    expect(JSON.stringify(plan.messages[0])).toContain(MATH_INSTRUCTIONS)
    expect(JSON.stringify(plan.messages)).toContain("calculator")
    expect(JSON.stringify(plan.messages)).not.toContain("clock.now")
    const filtered = await gql(app.url, `{ runs(filter: { agent: "math" }) { edges { node { id agent { name } } } } }`)
    expect(filtered.body.data.runs.edges.map((e: any) => e.node.id)).toContain(id)
    const others = await gql(app.url, `{ runs(filter: { agent: "other" }) { edges { node { id } } } }`)
    expect(others.body.data.runs.edges).toEqual([])
  })

  it("saveAgent makes the next version; a run keeps its version, name@1 runs the old one", async () => {
    const save = (instructions: string) =>
      gql(app.url, `mutation($input: AgentInput!) { saveAgent(input: $input) { name version versions { version } } }`, {
        input: { name: "helper", instructions, tools: ["calculator"], mode: "SIMPLE" }
      })
    expect((await save("first")).body.data.saveAgent).toMatchObject({ name: "helper", version: 1 })
    expect((await save("second")).body.data.saveAgent).toMatchObject({
      version: 2,
      versions: [{ version: 1 }, { version: 2 }]
    })
    const latest = await start({ agent: "helper", task: "Compute 6 * 7" })
    expect(latest.body.data.runTask.agent).toEqual({ name: "helper", version: 2 })
    await awaitRun(app.url, latest.body.data.runTask.id)
    stub.requests.length = 0
    const old = await start({ agent: "helper@1", task: "Compute 6 * 7" })
    expect(old.body.data.runTask.agent).toEqual({ name: "helper", version: 1 })
    await awaitRun(app.url, old.body.data.runTask.id)
    // version 1's instructions went to the model, not version 2's
    const systems = stub.requests.map((r) => String(r.messages[0].content))
    expect(systems.some((s) => s.endsWith("first"))).toBe(true)
    expect(systems.some((s) => s.endsWith("second"))).toBe(false)
    const shown = await gql(app.url, `{ agent(name: "helper") { version instructions versions { version } } }`)
    expect(shown.body.data.agent).toMatchObject({ version: 2, instructions: "second" })
    expect((await gql(app.url, `mutation { deleteAgent(name: "helper") }`)).body.data.deleteAgent).toBe(true)
    expect((await gql(app.url, `{ agent(name: "helper") { version } }`)).body.data.agent).toBeNull()
  })

  it("refusals are coded and store nothing: unknown agent or version, a request beyond the agent, a bad definition", async () => {
    const before = await runCount()
    for (const agent of ["nobody", "math@7"]) {
      const r = await start({ agent, task: "Compute 6 * 7" })
      expect(r.body.errors?.[0]?.extensions?.code).toBe("AGENT_NOT_FOUND")
    }
    const tool = await start({ agent: "math", task: "Compute 6 * 7", tools: ["clock.now"] })
    expect(tool.body.errors?.[0]?.extensions?.code).toBe("AGENT_OVERRIDE")
    expect(tool.body.errors?.[0]?.message).toContain("tools")
    const cap = await start({ agent: "math", task: "Compute 6 * 7", budget: { maxLlmCalls: 41 } })
    expect(cap.body.errors?.[0]?.extensions?.code).toBe("AGENT_OVERRIDE")
    expect(cap.body.errors?.[0]?.message).toContain("budget.maxLlmCalls")
    expect(await runCount()).toBe(before)
    const bad = await gql(app.url, `mutation($input: AgentInput!) { saveAgent(input: $input) { version } }`, {
      input: { name: "bad", tools: ["no.such.tool"] }
    })
    expect(bad.body.errors?.[0]?.extensions?.code).toBe("INVALID_AGENT")
    expect(bad.body.errors?.[0]?.message).toContain("tools.0")
    const badName = await gql(app.url, `mutation($input: AgentInput!) { saveAgent(input: $input) { version } }`, {
      input: { name: "Bad Name" }
    })
    expect(badName.body.errors?.[0]?.extensions?.code).toBe("INVALID_AGENT")
  })

  it("/v1 lists each agent as a model and runs it by name, the client's system text after the agent's", async () => {
    const client = new OpenAI({ baseURL: app.url.replace(/\/graphql$/, "/v1"), apiKey: "none", maxRetries: 0 })
    const ids = (await client.models.list()).data.map((m) => m.id)
    expect(ids).toEqual(expect.arrayContaining(["aeon", "aeon-simple", "aeon-full", "math"]))
    stub.requests.length = 0
    const done = await client.chat.completions.create({
      model: "math",
      messages: [{ role: "system", content: "Answer in French." }, { role: "user", content: "Compute 6 * 7" }]
    })
    expect(done.model).toBe("math")
    const plan = stub.requests.find((r) => promptOfRequest(r) === "plan_generation_user")
    const system = String(plan.messages[0].content)
    expect(system).toContain(MATH_INSTRUCTIONS)
    expect(system.indexOf(MATH_INSTRUCTIONS)).toBeLessThan(system.indexOf("Answer in French."))
    expect(plan.model).toBe("gpt-math")
    const missing = await client.chat.completions.create({
      model: "nobody",
      messages: [{ role: "user", content: "Compute 6 * 7" }]
    }).then(() => undefined, (e: any) => e)
    expect(missing?.status).toBe(404)
    expect(missing?.code).toBe("model_not_found")
  })

  it("each agent is an A2A agent of its own: its card through @a2a-js/sdk, its tasks runs of it", async () => {
    const base = app.url.replace(/\/graphql$/, "")
    const client = await new ClientFactory().createFromUrl(`${base}/a2a/agents/math/`)
    const card = await client.getAgentCard()
    expect(card.name).toBe("math")
    expect(card.description).toBe("Arithmetic with the calculator")
    expect(card.skills.map((s) => s.name)).toEqual(["calculator"])
    expect(card.supportedInterfaces[0]?.url).toBe(`${base}/a2a/agents/math`)
    const sent = await client.sendMessage({
      tenant: "",
      message: userMessage("Compute 6 * 7"),
      configuration: undefined,
      metadata: undefined
    })
    const taskId = "id" in sent ? sent.id : ""
    const run = await gql(app.url, `query($id: ID!) { run(id: $id) { agent { name version } } }`, { id: taskId })
    expect(run.body.data.run.agent).toEqual({ name: "math", version: 1 })
    const server = await (await new ClientFactory().createFromUrl(base)).getAgentCard()
    expect(server.name).toBe("Aeon")
    const missing = await fetch(`${base}/a2a/agents/nobody/.well-known/agent-card.json`)
    expect(missing.status).toBe(404)
  })
})

describe("agents as tools through the server", () => {
  it("a step of the desk runs the math agent as a child: Run.children, Run.parentRunId, the usage counted once", async () => {
    const started = await start({ agent: "desk", task: "What is 6 * 7?" })
    const id = started.body.data.runTask.id
    await awaitRun(app.url, id)
    const parent = await gql(
      app.url,
      `query($id: ID!) { run(id: $id) { status parentRunId usage { llmCalls } children { id status agent { name version } } } }`,
      { id }
    )
    const run = parent.body.data.run
    expect(run.parentRunId).toBeNull()
    expect(run.children).toEqual([{ id: `${id}.p1.s1`, status: "CONVERGED", agent: { name: "math", version: 1 } }])
    const child = await gql(
      app.url,
      `query($id: ID!) { run(id: $id) { parentRunId agent { name } usage { llmCalls } } }`,
      {
        id: run.children[0].id
      }
    )
    expect(child.body.data.run).toMatchObject({ parentRunId: id, agent: { name: "math" } })
    // every request of the two runs is counted once in the parent's usage: the child's calls went to gpt-math
    const childCalls = child.body.data.run.usage.llmCalls
    expect(childCalls).toBeGreaterThan(0)
    expect(run.usage.llmCalls).toBe(childCalls + stub.requests.filter((r) => r.model === "gpt-desk").length)
  })
})

describe("agents through MCP and AG-UI", () => {
  const agentOf = async (runId: string) =>
    (await gql(app.url, `query($id: ID!) { run(id: $id) { agent { name version } } }`, { id: runId })).body.data.run
      .agent

  it("MCP run_task takes the agent; AG-UI at /ag-ui/agents/<name> runs it; an unknown one is refused", async () => {
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(app.url.replace(/\/graphql$/, "/mcp"))))
    const result = await client.callTool({ name: "run_task", arguments: { task: "Compute 6 * 7", agent: "math" } })
    expect(result.isError).toBeFalsy()
    const view = result.structuredContent as { runId: string }
    expect(await agentOf(view.runId)).toEqual({ name: "math", version: 1 })
    const refused = await client.callTool({ name: "run_task", arguments: { task: "Compute 6 * 7", agent: "nobody" } })
    expect(refused.isError).toBe(true)
    await client.close()
    const base = app.url.replace(/\/graphql$/, "")
    const agent = new HttpAgent({ url: `${base}/ag-ui/agents/math` })
    agent.addMessage({ id: "m1", role: "user", content: "Compute 6 * 7" })
    const runIds: Array<string> = []
    await agent.runAgent({}, {
      onEvent: ({ event }) => void (event.type === "RUN_STARTED" && runIds.push(String((event as any).runId)))
    })
    expect(runIds.length).toBe(1)
    expect(await agentOf(runIds[0]!)).toEqual({ name: "math", version: 1 })
    const chat = await fetch(`${base}/api/chat/agents/math`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "c1", messages: [{ role: "user", parts: [{ type: "text", text: "Compute 6 * 7" }] }] })
    })
    expect(chat.status).toBe(200)
    const chatRun = chat.headers.get("x-aeon-run-id")!
    await chat.text()
    expect(await agentOf(chatRun)).toEqual({ name: "math", version: 1 })
  })
})

describe("agents of users (API keys bound to users)", () => {
  let keyed: TestServer
  const alice = { authorization: "Bearer key-alice" }
  const bob = { authorization: "Bearer key-bob" }
  beforeAll(async () => {
    keyed = await startServer({
      model: stubModel(stub),
      config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) }
    })
  })
  afterAll(() => keyed?.close())
  const save = (name: string, instructions: string, headers: Record<string, string>) =>
    gql(keyed.url, `mutation($input: AgentInput!) { saveAgent(input: $input) { name version owner } }`, {
      input: { name, instructions }
    }, headers)

  it("a user's agent is theirs: another never lists, reads or runs it, and the same name is their own", async () => {
    expect((await save("notes", "alice's", alice)).body.data.saveAgent).toEqual({
      name: "notes",
      version: 1,
      owner: "alice"
    })
    const bobList = await gql(keyed.url, `{ agents { name owner } }`, {}, bob)
    expect(bobList.body.data.agents.map((a: any) => a.name)).not.toContain("notes")
    expect(bobList.body.data.agents.map((a: any) => a.name)).toContain("math")
    expect((await gql(keyed.url, `{ agent(name: "notes") { version } }`, {}, bob)).body.data.agent).toBeNull()
    const bobRun = await start({ agent: "notes", task: "Compute 6 * 7" }, bob, keyed.url)
    expect(bobRun.body.errors?.[0]?.extensions?.code).toBe("AGENT_NOT_FOUND")
    expect((await save("notes", "bob's", bob)).body.data.saveAgent).toEqual({ name: "notes", version: 1, owner: "bob" })
    const aliceRead = await gql(keyed.url, `{ agent(name: "notes") { instructions owner } }`, {}, alice)
    expect(aliceRead.body.data.agent).toEqual({ instructions: "alice's", owner: "alice" })
    expect((await gql(keyed.url, `mutation { deleteAgent(name: "math") }`, {}, bob)).body.data.deleteAgent).toBe(false)
  })
})
