import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai"
import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gql, startServer, type TestServer } from "../support/server.js"

// The AI SDK's own transport (DefaultChatTransport: useChat's) and reader (readUIMessageStream) against /api/chat;
// the offline model answers (a labeled stand-in).
let server: TestServer
beforeAll(async () => {
  server = await startServer({ config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) } })
})
afterAll(() => server?.stop())

const api = () => server.url.replace(/\/graphql$/, "/api/chat")
const userMessage = (text: string): UIMessage => ({
  id: `u-${text.length}`,
  role: "user",
  parts: [{ type: "text", text }]
})

const transport = (key = "key-alice", cursor?: { fromSeq: number; textFrom: number }) =>
  new DefaultChatTransport<UIMessage>({
    api: api(),
    headers: { authorization: `Bearer ${key}` },
    prepareReconnectToStreamRequest: ({ api, id }) => ({
      api: `${api}/${encodeURIComponent(id)}/stream${
        cursor ? `?fromSeq=${cursor.fromSeq}&textFrom=${cursor.textFrom}` : ""
      }`,
      headers: { authorization: `Bearer ${key}` }
    })
  })

const send = (text: string, body: Record<string, unknown> = {}, signal?: AbortSignal) =>
  transport().sendMessages({
    trigger: "submit-message",
    chatId: "chat-1",
    messageId: undefined,
    messages: [userMessage(text)],
    abortSignal: signal,
    body
  })

/** The last message a stream of chunks assembles (from `message` on, when given). */
const assemble = async (stream: ReadableStream<UIMessageChunk>, message?: UIMessage) => {
  let last: UIMessage | undefined = message
  for await (const m of readUIMessageStream({ stream, ...(message ? { message } : {}) })) last = m
  return last!
}

const textOf = (m: UIMessage) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("")
const runPart = (m: UIMessage) => m.parts.find((p) => p.type === "data-run") as { data: any } | undefined
const cursorOf = (m: UIMessage) => (m.parts.find((p) => p.type === "data-cursor") as { data: { seq: number } }).data
/** What a message shows, part by part, apart from how its text was cut into parts. */
const shape = (m: UIMessage) =>
  m.parts.flatMap((p): Array<string> => {
    if (p.type === "reasoning") return [`reasoning ${p.text}`]
    if (p.type === "dynamic-tool") return [`tool ${p.toolCallId} ${p.toolName} ${p.state} ${JSON.stringify(p.output)}`]
    return []
  })

describe("POST /api/chat", () => {
  it("streams a run as a UI message: reasoning for its phases and steps, its tool call, its answer's text, its state", async () => {
    const message = await assemble(
      await send("Compute (17 + 25) * 3 and explain the result", { aeon: { mode: "FULL" } })
    )
    expect(message.role).toBe("assistant")
    expect(textOf(message)).toContain("126")
    const reasoning = message.parts.filter((p) => p.type === "reasoning").map((p: any) => p.text)
    expect(reasoning).toContain("Pass 1: execute")
    expect(reasoning.some((r: string) => r.startsWith("Step s1 complete"))).toBe(true)
    const tool = message.parts.find((p) => p.type === "dynamic-tool") as any
    expect(tool).toMatchObject({ toolName: "calculator", state: "output-available" })
    const state = runPart(message)!.data
    expect(state).toMatchObject({ runId: message.id, status: "CONVERGED", plan: { goal: expect.any(String) } })
    expect(state.usage.llmCalls).toBeGreaterThan(0)
    const run = await gql(server.url, `query($id: ID!) { run(id: $id) { status finalAnswer { answerText } } }`, {
      id: message.id
    }, { authorization: "Bearer key-alice" })
    expect(run.body.data.run.status).toBe("CONVERGED")
    expect(textOf(message)).toBe(run.body.data.run.finalAnswer.answerText)
  })

  it("a stream cut mid-run resumes from /api/chat/:id/stream: no part missing or repeated", async () => {
    const abort = new AbortController()
    const cutAt = await send("Compute (17 + 25) * 3 and explain the result", { aeon: { mode: "FULL" } }, abort.signal)
    // read until the run's state says the first pass executes, then the connection goes
    let partial: UIMessage | undefined
    for await (const m of readUIMessageStream({ stream: cutAt })) {
      partial = m
      if ((runPart(m)?.data.plan?.steps.length ?? 0) > 0) break
    }
    abort.abort()
    expect(runPart(partial!)!.data.status).not.toBe("CONVERGED")
    const cursor = { fromSeq: cursorOf(partial!).seq + 1, textFrom: textOf(partial!).length }
    const rest = await transport("key-alice", cursor).reconnectToStream({ chatId: partial!.id })
    const resumed = await assemble(rest!, structuredClone(partial!))
    // the same run read whole from its log
    const whole = await assemble(
      (await transport("key-alice", { fromSeq: 0, textFrom: 0 }).reconnectToStream({
        chatId: partial!.id
      }))!
    )
    expect(shape(resumed)).toEqual(shape(whole))
    expect(textOf(resumed)).toBe(textOf(whole))
    expect(textOf(resumed)).toContain("126")
    expect(runPart(resumed)!.data).toEqual(runPart(whole)!.data)
    expect(cursorOf(resumed)).toEqual(cursorOf(whole))
    expect(runPart(resumed)!.data.status).toBe("CONVERGED")
  })

  it("a resume without a cursor of a run that has ended has nothing to send (204); another user's run neither", async () => {
    const message = await assemble(await send("Compute 17 + 25"))
    expect(await transport().reconnectToStream({ chatId: message.id })).toBeNull()
    expect(await transport("key-bob", { fromSeq: 0, textFrom: 0 }).reconnectToStream({ chatId: message.id })).toBeNull()
  })

  it("refuses a wrong key (401) and messages without a user's text (400)", async () => {
    const wrong = await fetch(api(), { method: "POST", headers: { authorization: "Bearer nope" }, body: "{}" })
    expect(wrong.status).toBe(401)
    const empty = await fetch(api(), {
      method: "POST",
      headers: { authorization: "Bearer key-alice", "content-type": "application/json" },
      body: JSON.stringify({
        id: "c",
        messages: [{ id: "a", role: "assistant", parts: [{ type: "text", text: "hi" }] }]
      })
    })
    expect(empty.status).toBe(400)
  })
})
