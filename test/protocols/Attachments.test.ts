import { ClientFactory } from "@a2a-js/sdk/client"
import { HttpAgent } from "@ag-ui/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { userMessage } from "../support/a2a.js"
import { cliIn } from "../support/cli.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * A task's image from every surface (#57 item 5), each through its own client, reaching the model (a real OpenAI
 * provider on a stub endpoint) as an image_url part of the plan call.
 */
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex").toString("base64")
const DATA_URL = `data:image/png;base64,${PNG}`

let stub: OpenAiStub
let app: TestServer
beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith((body) => ({ content: JSON.stringify(byPrompt[promptOfRequest(body) ?? ""] ?? {}) }))
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
/** Whether the plan call carried the image. */
const planSawImage = () =>
  stub.requests.some((b) =>
    /^plan_/.test(promptOfRequest(b) ?? "") && Array.isArray(b.messages[1].content) &&
    b.messages[1].content.some((p: any) => p.type === "image_url" && p.image_url.url === DATA_URL)
  )

describe("an image from every surface", () => {
  it("GraphQL: RunTaskInput.attachments", async () => {
    const started = await gql(
      app.url,
      `mutation($a: [AttachmentInput!]) { runTask(input: { task: "Compute 6 * 7", memory: false, attachments: $a }) { id } }`,
      { a: [{ mediaType: "image/png", data: PNG, name: "dot.png" }] }
    )
    expect((await awaitRun(app.url, started.body.data.runTask.id)).status).toBe("CONVERGED")
    expect(planSawImage()).toBe(true)
  })

  it("/v1: an image_url part of the last user message", async () => {
    const client = new OpenAI({ baseURL: `${base()}/v1`, apiKey: "none" })
    await client.chat.completions.create({
      model: "aeon",
      messages: [{
        role: "user",
        content: [{ type: "text", text: "Compute 6 * 7" }, { type: "image_url", image_url: { url: DATA_URL } }]
      }]
    })
    expect(planSawImage()).toBe(true)
  })

  it("A2A: a file part of the message (raw bytes)", async () => {
    const client = await new ClientFactory().createFromUrl(base())
    const m = userMessage("Compute 6 * 7")
    await client.sendMessage({
      tenant: "",
      message: {
        ...m,
        parts: [...m.parts, {
          content: { $case: "raw", value: Buffer.from(PNG, "base64") },
          metadata: undefined,
          filename: "dot.png",
          mediaType: "image/png"
        }]
      },
      configuration: undefined,
      metadata: undefined
    })
    expect(planSawImage()).toBe(true)
  })

  it("the AI SDK's chat: a file part", async () => {
    const transport = new DefaultChatTransport<UIMessage>({ api: `${base()}/api/chat` })
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: "files-1",
      messageId: undefined,
      messages: [{
        id: "u1",
        role: "user",
        parts: [{ type: "text", text: "Compute 6 * 7" }, { type: "file", mediaType: "image/png", url: DATA_URL }]
      }],
      abortSignal: undefined
    })
    for await (const _ of readUIMessageStream({ stream })) void _
    expect(planSawImage()).toBe(true)
  })

  it("AG-UI: an image part of the user message (its source the bytes)", async () => {
    const agent = new HttpAgent({ url: `${base()}/ag-ui` })
    agent.addMessage({
      id: "m1",
      role: "user",
      content: [{ type: "text", text: "Compute 6 * 7" }, {
        type: "image",
        source: { type: "data", value: PNG, mimeType: "image/png" }
      }]
    })
    await agent.runAgent({})
    expect(planSawImage()).toBe(true)
  })

  it("MCP: run_task's attachments", async () => {
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`)))
    try {
      await client.callTool({
        name: "run_task",
        arguments: { task: "Compute 6 * 7", attachments: [{ mediaType: "image/png", data: PNG }] }
      })
      expect(planSawImage()).toBe(true)
    } finally {
      await client.close()
    }
  })

  it("the CLI: aeon run --file, with the offline stand-in refused before anything runs", async () => {
    const { aeon, dir, env } = cliIn("aeon-files-")
    const file = join(dir, "dot.png")
    writeFileSync(file, Buffer.from(PNG, "base64"))
    const refused = await aeon("run", "--file", file, "Describe the image")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("offline model")
    env.AEON_LLM_BASE_URL = stub.baseURL
    env.AEON_LLM_API_KEY = "k"
    const done = await aeon("run", "--file", file, "--json", "Compute 6 * 7")
    expect(JSON.parse(done.stdout).status).toBe("CONVERGED")
    expect(planSawImage()).toBe(true)
    const unknown = await aeon("run", "--file", join(dir, "notes.docx"), "Read it")
    expect(unknown.stderr).toContain("unknown kind of file")
  })
})
