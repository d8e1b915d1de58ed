import { ClientFactory } from "@a2a-js/sdk/client"
import { HttpAgent } from "@ag-ui/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai"
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { userMessage } from "../support/a2a.js"
import { cliIn } from "../support/cli.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { exited, startProcess } from "../support/process.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"
import { byPrompt, promptOfRequest } from "../support/stubAnswers.js"

/**
 * A task's image from every surface (#57 item 5), each through its own client, reaching the model (a real OpenAI
 * provider on a stub endpoint) as an image_url part of the plan call.
 */
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex").toString("base64")

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
/** Whether the plan call carried the image whose bytes are `data` (base64), whole. */
const planSaw = (data: string) =>
  stub.requests.some((b) =>
    /^plan_/.test(promptOfRequest(b) ?? "") && Array.isArray(b.messages[1].content) &&
    b.messages[1].content.some((p: any) =>
      p.type === "image_url" && p.image_url.url === `data:image/png;base64,${data}`
    )
  )
const planSawImage = () => planSaw(PNG)

/** A PNG's bytes (base64) sent with "Compute 6 * 7" through each surface, by its own client. */
const SURFACES: ReadonlyArray<readonly [string, (data: string) => Promise<unknown>]> = [
  ["GraphQL: RunTaskInput.attachments", async (data) => {
    const started = await gql(
      app.url,
      `mutation($a: [AttachmentInput!]) { runTask(input: { task: "Compute 6 * 7", memory: false, attachments: $a }) { id } }`,
      { a: [{ mediaType: "image/png", data, name: "dot.png" }] }
    )
    expect((await awaitRun(app.url, started.body.data.runTask.id)).status).toBe("CONVERGED")
  }],
  [
    "/v1: an image_url part of the last user message",
    (data) =>
      new OpenAI({ baseURL: `${base()}/v1`, apiKey: "none", maxRetries: 0 }).chat.completions.create({
        model: "aeon",
        messages: [{
          role: "user",
          content: [{ type: "text", text: "Compute 6 * 7" }, {
            type: "image_url",
            image_url: { url: `data:image/png;base64,${data}` }
          }]
        }]
      })
  ],
  ["A2A: a file part of the message (raw bytes)", async (data) => {
    const client = await new ClientFactory().createFromUrl(base())
    const m = userMessage("Compute 6 * 7")
    await client.sendMessage({
      tenant: "",
      message: {
        ...m,
        parts: [...m.parts, {
          content: { $case: "raw", value: Buffer.from(data, "base64") },
          metadata: undefined,
          filename: "dot.png",
          mediaType: "image/png"
        }]
      },
      configuration: undefined,
      metadata: undefined
    })
  }],
  ["the AI SDK's chat: a file part", async (data) => {
    const transport = new DefaultChatTransport<UIMessage>({ api: `${base()}/api/chat` })
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: `files-${data.length}`,
      messageId: undefined,
      messages: [{
        id: "u1",
        role: "user",
        parts: [{ type: "text", text: "Compute 6 * 7" }, {
          type: "file",
          mediaType: "image/png",
          url: `data:image/png;base64,${data}`
        }]
      }],
      abortSignal: undefined
    })
    for await (const _ of readUIMessageStream({ stream })) void _
  }],
  ["AG-UI: an image part of the user message (its source the bytes)", async (data) => {
    const agent = new HttpAgent({ url: `${base()}/ag-ui` })
    agent.addMessage({
      id: "m1",
      role: "user",
      content: [{ type: "text", text: "Compute 6 * 7" }, {
        type: "image",
        source: { type: "data", value: data, mimeType: "image/png" }
      }]
    })
    await agent.runAgent({})
  }],
  ["MCP: run_task's attachments", async (data) => {
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`)))
    try {
      await client.callTool({
        name: "run_task",
        arguments: { task: "Compute 6 * 7", attachments: [{ mediaType: "image/png", data }] }
      })
    } finally {
      await client.close()
    }
  }]
]

describe("an image from every surface", () => {
  for (const [surface, send] of SURFACES) {
    it(surface, async () => {
      await send(PNG)
      expect(planSawImage()).toBe(true)
    })
  }

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

/**
 * The largest attachment docs/files.md promises (5 MB) through every surface that takes one (#69 item 6): once
 * refused past ~740 KB by a body limit of 1 MB ("request body over 1000000 bytes"). The server's default body limit
 * takes the promised attachments; past a limit, the refusal names AEON_MAX_BODY_BYTES.
 */
describe("a 5 MB attachment through every surface (#69.6)", () => {
  const BIG = Buffer.concat([Buffer.from(PNG, "base64"), Buffer.alloc(5 * 1024 * 1024 - 29, 7)])
  const BIG64 = BIG.toString("base64")
  const BIG_URL = `data:image/png;base64,${BIG64}`
  const planSawBig = () => planSaw(BIG64)
  it("is 5 MB, the most an attachment may be", () => {
    expect(BIG.length).toBe(5 * 1024 * 1024)
  })

  for (const [surface, send] of SURFACES) {
    it(surface, async () => {
      await send(BIG64)
      expect(planSaw(BIG64)).toBe(true)
    }, 60_000)
  }

  it("aeon run --file beside a server (the quick start's set-up): the server runs it with the file", async () => {
    const { dir, env } = cliIn("aeon-big-file-")
    const server = startProcess({
      AEON_PORT: "0",
      AEON_DATA_DIR: join(dir, "data"),
      AEON_LLM_BASE_URL: stub.baseURL,
      AEON_LLM_API_KEY: "k"
    })
    try {
      const url = await server.url
      const file = join(dir, "big.png")
      writeFileSync(file, BIG)
      const done = await execAeon(env, "run", "--file", file, "--json", "Compute 6 * 7")
      const result = JSON.parse(done.stdout)
      expect(result.status).toBe("CONVERGED")
      // the server's run (the CLI's own model is the offline one, which reads no file)
      const run = (await gql(url, `query($id: ID!) { run(id: $id) { status model } }`, { id: result.runId })).body
      expect(run.data.run).toEqual({ status: "CONVERGED", model: "openai:gpt-4o-mini" })
      expect(planSawBig()).toBe(true)
    } finally {
      server.child.kill("SIGINT")
      await exited(server.child)
    }
  }, 90_000)

  it("past the server's limit: 413 naming AEON_MAX_BODY_BYTES", async () => {
    const small = await startServer({ model: stubModel(stub), config: { maxBodyBytes: 100_000 } })
    try {
      const client = new OpenAI({ baseURL: small.url.replace(/\/graphql$/, "/v1"), apiKey: "none", maxRetries: 0 })
      const refused = await client.chat.completions.create({
        model: "aeon",
        messages: [{
          role: "user",
          content: [{ type: "text", text: "Compute 6 * 7" }, { type: "image_url", image_url: { url: BIG_URL } }]
        }]
      }).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>)
      expect(refused?.status).toBe(413)
      expect(refused?.message).toContain("request body over 100000 bytes (the server's AEON_MAX_BODY_BYTES)")
    } finally {
      await small.stop()
    }
  }, 60_000)
})

const execAeon = (env: Record<string, string>, ...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["bin/aeon.mjs", ...args],
      { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      (e, stdout, stderr) => resolve({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stdout, stderr })
    )
  )
