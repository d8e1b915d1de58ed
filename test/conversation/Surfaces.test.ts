import { ClientFactory } from "@a2a-js/sdk/client"
import { HttpAgent } from "@ag-ui/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai"
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { countTokens } from "../../src/llm/Tokenizer.js"
import { DEFAULT_THREAD_CONTEXT_TOKENS } from "../../src/memory/Conversation.js"
import { userMessage } from "../support/a2a.js"
import { conversationReply, PLAN_PROMPTS, requestsFor, SUMMARY, userText } from "../support/conversation.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { gql, startServer, type TestServer } from "../support/server.js"

/**
 * Conversations through each protocol's own client (#56 item 2): A2A's contextId, AG-UI's threadId and messages, the
 * AI SDK's chat, `/v1` with a long history, MCP's run_task threadId — against a real OpenAI provider on a stub
 * endpoint, what reached the model read from the stub's requests.
 */
let stub: OpenAiStub
let app: TestServer

beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith(conversationReply)
  app = await startServer({ model: stubModel(stub) })
})
afterAll(async () => {
  await app?.stop()
  await stub?.close()
})
beforeEach(() => {
  stub.requests.length = 0
})

const base = () => app.url.replace(/\/graphql$/, "")
const planTexts = () => requestsFor(stub.requests, PLAN_PROMPTS).map(userText)
const threadTurns = async (id: string) =>
  (await gql(app.url, `query($id: ID!) { thread(id: $id) { turns { edges { node { task status } } } } }`, { id }))
    .body.data.thread?.turns.edges.map((e: any) => e.node.task)

describe("a conversation on every surface", () => {
  it("A2A: the next message on a contextId continues the conversation", async () => {
    const client = await new ClientFactory().createFromUrl(base())
    const send = (text: string) =>
      client.sendMessage({
        tenant: "",
        message: userMessage(text, { contextId: "ctx-a2a-1" }),
        configuration: undefined,
        metadata: undefined
      })
    await send("Remember: the warehouse is in Leixões.")
    stub.requests.length = 0
    const second = await send("Where is the warehouse?")
    expect("contextId" in second && second.contextId).toBe("ctx-a2a-1")
    expect(planTexts().length).toBeGreaterThan(0)
    for (const t of planTexts()) expect(t).toContain("the warehouse is in Leixões")
    expect(await threadTurns("ctx-a2a-1")).toEqual([
      "Remember: the warehouse is in Leixões.",
      "Where is the warehouse?"
    ])
    // another context sees none of it
    stub.requests.length = 0
    await client.sendMessage({
      tenant: "",
      message: userMessage("Where is the warehouse?", { contextId: "ctx-a2a-2" }),
      configuration: undefined,
      metadata: undefined
    })
    for (const r of stub.requests) expect(JSON.stringify(r.messages)).not.toContain("Leixões")
  })

  it("AG-UI: threadId is the thread; the messages the client sends are the conversation", async () => {
    const agent = new HttpAgent({ url: `${base()}/ag-ui`, threadId: "agui-1" })
    agent.addMessage({ id: "m1", role: "user", content: "My order number is 88213." })
    await agent.runAgent({})
    agent.addMessage({ id: "m3", role: "user", content: "Which order did I mention?" })
    stub.requests.length = 0
    await agent.runAgent({})
    for (const t of planTexts()) expect(t).toMatch(/Which order did I mention\?[\s\S]*My order number is 88213/)
    expect(await threadTurns("agui-1")).toEqual(["My order number is 88213.", "Which order did I mention?"])
    // a conversation the client holds and Aeon never ran (imported, edited): the client's messages are the context
    const imported = new HttpAgent({ url: `${base()}/ag-ui`, threadId: "agui-2" })
    imported.addMessage({ id: "i1", role: "user", content: "My locker is number 614." })
    imported.addMessage({ id: "i2", role: "assistant", content: "Locker 614, noted." })
    imported.addMessage({ id: "i3", role: "user", content: "Which locker is mine?" })
    stub.requests.length = 0
    await imported.runAgent({})
    for (const t of planTexts()) expect(t).toContain(`{"assistant":"Locker 614, noted."}`)
  })

  it("the AI SDK's chat: the chat id is the thread, its earlier messages the conversation", async () => {
    const transport = new DefaultChatTransport<UIMessage>({ api: `${base()}/api/chat` })
    const say = async (messages: Array<UIMessage>) => {
      const stream = await transport.sendMessages({
        trigger: "submit-message",
        chatId: "ui-chat-1",
        messageId: undefined,
        messages,
        abortSignal: undefined
      })
      let last: UIMessage | undefined
      for await (const m of readUIMessageStream({ stream })) last = m
      return last!
    }
    const first: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "I was born in 1987." }] }
    const reply = await say([first])
    stub.requests.length = 0
    await say([first, { ...reply, id: "a1" }, {
      id: "u2",
      role: "user",
      parts: [{ type: "text", text: "How old am I in 2026?" }]
    }])
    for (const t of planTexts()) expect(t).toContain("I was born in 1987.")
    expect(await threadTurns("ui-chat-1")).toEqual(["I was born in 1987.", "How old am I in 2026?"])
  })

  it("/v1: a long history keeps its first message's fact, within the bound; the next request reuses the summary", async () => {
    const client = new OpenAI({ baseURL: `${base()}/v1`, apiKey: "none" })
    const history: Array<{ role: "user" | "assistant"; content: string }> = [
      { role: "user", content: "Keep this in mind: my account id is QX-4410." },
      { role: "assistant", content: "Noted." }
    ]
    for (let i = 1; i <= 60; i++) {
      history.push({ role: "user", content: `Question ${i}: describe the ${i}th harbour of the coast and its tides.` })
      history.push({ role: "assistant", content: `Harbour ${i} ${"has calm water and two tides a day. ".repeat(6)}` })
    }
    const ask = (messages: typeof history) =>
      client.chat.completions.create({
        model: "aeon-simple",
        messages: [...messages, { role: "user", content: "What is my account id?" }]
      })
    const done = await ask(history)
    expect(done.choices[0]!.message.content).toBeTruthy()
    const plans = planTexts()
    expect(plans.length).toBeGreaterThan(0)
    for (const t of plans) {
      expect(t).toContain("QX-4410")
      expect(countTokens(t)).toBeLessThan(DEFAULT_THREAD_CONTEXT_TOKENS + 700)
    }
    const summaries = requestsFor(stub.requests, [SUMMARY]).length
    expect(summaries).toBeGreaterThan(0)
    // the same conversation, one turn on: the stored summary of its first messages is reused
    stub.requests.length = 0
    await ask([...history, { role: "user", content: "What is my account id?" }, {
      role: "assistant",
      content: "QX-4410"
    }])
    expect(requestsFor(stub.requests, [SUMMARY]).length).toBe(0)
    for (const t of planTexts()) expect(t).toContain("QX-4410")
  })

  it("MCP: run_task's threadId continues a thread", async () => {
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`)))
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === "run_task")!
      expect(Object.keys(tool.inputSchema.properties ?? {})).toContain("threadId")
      await client.callTool({
        name: "run_task",
        arguments: { task: "The password hint is 'blue heron'.", threadId: "mcp-1" }
      })
      stub.requests.length = 0
      await client.callTool({ name: "run_task", arguments: { task: "What is the password hint?", threadId: "mcp-1" } })
      for (const t of planTexts()) expect(t).toContain("blue heron")
    } finally {
      await client.close()
    }
  })
})
