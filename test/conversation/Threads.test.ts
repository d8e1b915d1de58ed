import { Option, Redacted } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { countTokens } from "../../src/llm/Tokenizer.js"
import { DEFAULT_THREAD_CONTEXT_TOKENS } from "../../src/memory/Conversation.js"
import { conversationReply, PLAN_PROMPTS, requestsFor, SUMMARY, userText } from "../support/conversation.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"

/**
 * Threads through GraphQL (#56): a real OpenAI provider against a stub endpoint; what reached the model is read from
 * the stub's requests. Two users (API keys) for isolation.
 */
let stub: OpenAiStub
let app: TestServer
const ALICE = { authorization: "Bearer key-alice" }
const BOB = { authorization: "Bearer key-bob" }

beforeAll(async () => {
  stub = await startOpenAiStub()
  stub.replyWith(conversationReply)
  app = await startServer({
    model: stubModel(stub),
    config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) }
  })
})
afterAll(async () => {
  await app?.stop()
  await stub?.close()
})
beforeEach(() => {
  stub.requests.length = 0
})

const RUN = `query($id: ID!) { run(id: $id) { status threadId conversation { turn messages summarised compacted tokens }
  usage { llmCalls } llmCalls(first: 50) { edges { node { promptId } } } } }`

const turn = async (task: string, threadId: string, headers = ALICE) => {
  const started = await gql(
    app.url,
    `mutation($task: String!, $thread: ID) { runTask(input: { task: $task, threadId: $thread, memory: false }) { id } }`,
    { task, thread: threadId },
    headers
  )
  expect(started.body.errors).toBeUndefined()
  const id: string = started.body.data.runTask.id
  return { id, run: await awaitRun(app.url, id, { query: RUN, headers }) }
}

describe("a typed turn of a thread (#69.13)", () => {
  it("the typed answer prompt quotes the turns before it, as the untyped one does", async () => {
    await turn("Remember this: my hotel budget is 180 euros a night.", "typed-trip")
    stub.requests.length = 0
    const started = await gql(
      app.url,
      `mutation($i: RunTaskInput!) { runTask(input: $i) { id } }`,
      {
        i: {
          task: "Give my hotel budget as a number.",
          threadId: "typed-trip",
          memory: false,
          outputSchema: { type: "object", properties: { euros: { type: "integer" } }, required: ["euros"] }
        }
      },
      ALICE
    )
    await awaitRun(app.url, started.body.data.runTask.id, { headers: ALICE })
    const typed = requestsFor(stub.requests, ["answer_typed_user"])
    expect(typed.length).toBeGreaterThan(0)
    for (const r of typed) expect(userText(r)).toContain("my hotel budget is 180 euros a night")
  })
})

describe("a thread through GraphQL", () => {
  it("the second turn's plan and answer prompts quote the first turn; thread(id) lists both turns", async () => {
    const first = await turn("Remember this: my travel budget is 420 euros.", "trip")
    expect(first.run.conversation).toMatchObject({ turn: 1, messages: 0 })
    stub.requests.length = 0
    const second = await turn("How much can I spend on the hotel?", "trip")
    expect(second.run).toMatchObject({ status: "CONVERGED", threadId: "trip", conversation: { turn: 2, messages: 2 } })
    const plan = requestsFor(stub.requests, PLAN_PROMPTS)
    expect(plan.length).toBeGreaterThan(0)
    for (const r of plan) expect(userText(r)).toContain("my travel budget is 420 euros")
    const answers = requestsFor(stub.requests, ["answer_synthesis_user"])
    for (const r of answers) expect(userText(r)).toContain("420 euros")
    // quoted as data, after the task, never as the task
    expect(userText(plan[0])).toMatch(/How much can I spend on the hotel\?[\s\S]*quoted data[\s\S]*420 euros/)
    const thread = await gql(
      app.url,
      `{ thread(id: "trip") { id turnCount lastTask turns { edges { node { turn runId task status answer } } } } }`,
      {},
      ALICE
    )
    expect(thread.body.data.thread).toMatchObject({
      id: "trip",
      turnCount: 2,
      lastTask: "How much can I spend on the hotel?"
    })
    expect(thread.body.data.thread.turns.edges.map((e: any) => e.node.runId)).toEqual([first.id, second.id])
    const runs = await gql(app.url, `{ runs(first: 5) { edges { node { task } } } }`, {}, ALICE)
    // a turn's task is what the person asked in that turn
    expect(runs.body.data.runs.edges.map((e: any) => e.node.task)).toContain("How much can I spend on the hotel?")
  })

  it("another user's thread is not found, and the same id is a thread of their own that sees nothing of it", async () => {
    await turn("The vault code is 5512.", "vault")
    const peek = await gql(app.url, `{ thread(id: "vault") { id } }`, {}, BOB)
    expect(peek.body.data.thread).toBeNull()
    stub.requests.length = 0
    const bobs = await turn("What is the vault code?", "vault", BOB)
    expect(bobs.run.conversation).toMatchObject({ turn: 1, messages: 0 })
    for (const r of stub.requests) expect(JSON.stringify(r.messages)).not.toContain("5512")
    const forgetByBob = await gql(app.url, `mutation { forgetThread(id: "vault") }`, {}, BOB)
    expect(forgetByBob.body.data.forgetThread).toBe(true)
    const alices = await gql(app.url, `{ thread(id: "vault") { turnCount } }`, {}, ALICE)
    expect(alices.body.data.thread.turnCount).toBe(1)
    const list = await gql(app.url, `{ threads { edges { node { id } } } }`, {}, BOB)
    expect(list.body.data.threads.edges).toEqual([])
  })

  it("a 30-turn thread keeps its first turn's fact at turn 31 with every request within the bound", async () => {
    const id = "long"
    await turn("Remember: the launch code is ZEBRA-7731.", id)
    const planTokens: Array<number> = []
    const quoted: Array<number> = []
    let compactions = 0
    for (let i = 2; i <= 31; i++) {
      stub.requests.length = 0
      const task = i === 31
        ? "What is the launch code?"
        : `Turn ${i}: compare the ${i} ferry timetables for the islands and list their departures`
      const t = await turn(task, id)
      expect(t.run.status).toBe("CONVERGED")
      quoted.push(t.run.conversation.tokens)
      const calls = t.run.llmCalls.edges.map((e: any) => e.node.promptId)
      if (t.run.conversation.compacted) {
        compactions++
        // the compaction's call is the run's: recorded and counted in its usage
        expect(calls).toContain(SUMMARY)
        expect(t.run.usage.llmCalls).toBe(calls.length)
      } else expect(calls).not.toContain(SUMMARY)
      for (const r of requestsFor(stub.requests, PLAN_PROMPTS)) planTokens.push(countTokens(userText(r)))
      if (i === 31) {
        for (const r of requestsFor(stub.requests, PLAN_PROMPTS)) expect(userText(r)).toContain("ZEBRA-7731")
      }
    }
    expect(Math.max(...quoted)).toBeLessThanOrEqual(DEFAULT_THREAD_CONTEXT_TOKENS)
    // the plan request stays flat: its own text plus at most the bound
    expect(Math.max(...planTokens)).toBeLessThan(DEFAULT_THREAD_CONTEXT_TOKENS + 700)
    // a summary is made now and then, not every turn
    expect(compactions).toBeGreaterThan(0)
    expect(compactions).toBeLessThan(10)
  })

  it("forgetThread erases the thread and its turns", async () => {
    const a = await turn("Note: the meeting is on Tuesday.", "erase")
    const forgotten = await gql(app.url, `mutation { forgetThread(id: "erase") }`, {}, ALICE)
    expect(forgotten.body.data.forgetThread).toBe(true)
    const after = await gql(app.url, `{ thread(id: "erase") { id } }`, {}, ALICE)
    expect(after.body.data.thread).toBeNull()
    const run = await gql(app.url, `query($id: ID!) { run(id: $id) { id } }`, { id: a.id }, ALICE)
    expect(run.body.data.run).toBeNull()
    const again = await gql(app.url, `mutation { forgetThread(id: "erase") }`, {}, ALICE)
    expect(again.body.data.forgetThread).toBe(false)
  })

  it("history: the messages a client holds are the run's conversation", async () => {
    const started = await gql(
      app.url,
      `mutation($h: [ConversationMessageInput!]) { runTask(input: { task: "Which colour did I pick?", history: $h, memory: false }) { id } }`,
      { h: [{ role: "user", text: "I pick the colour teal." }, { role: "assistant", text: "Teal it is." }] },
      ALICE
    )
    const run = await awaitRun(app.url, started.body.data.runTask.id, { query: RUN, headers: ALICE })
    expect(run.conversation).toMatchObject({ messages: 2, compacted: false })
    expect(run.threadId).toBeNull()
    for (const r of requestsFor(stub.requests, PLAN_PROMPTS)) {
      expect(userText(r)).toContain(`{"user":"I pick the colour teal."}`)
    }
  })

  it("a bad threadId is refused, coded, with nothing started", async () => {
    const bad = await gql(
      app.url,
      `mutation { runTask(input: { task: "Hi", threadId: "no spaces allowed" }) { id } }`,
      {},
      ALICE
    )
    expect(bad.body.errors?.[0]?.extensions?.code).toBe("InvalidRunInputError")
    expect(bad.body.errors?.[0]?.message).toContain("threadId")
  })
})
