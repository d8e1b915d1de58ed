import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Aeon from "../../src/Aeon.js"
import { serve } from "../../src/launch/App.js"
import { LanguageModel } from "../../src/llm/LanguageModel.js"
import * as Database from "../../src/store/Database.js"
import { conversationReply, PLAN_PROMPTS, requestsFor, userText } from "../support/conversation.js"
import { backend, freshDatabase } from "../support/database.js"
import { type OpenAiStub, startOpenAiStub, stubModel } from "../support/OpenAiStub.js"
import { awaitRun, gql } from "../support/server.js"

/**
 * Two turns sent at once on one thread (#56 item 4, #73.4): with `onBusy: REJECT` the second is refused, coded
 * (ThreadBusyError), while the first is under way; ENQUEUE (the default) starts it once the first has ended, seeing its
 * answer; INTERRUPT cancels the first and starts the second — on one server, and on two servers sharing a PostgreSQL
 * database, where each sees every thread.
 */
let stub: OpenAiStub
const servers: Array<Awaited<ReturnType<typeof serve>>> = []

beforeAll(async () => {
  stub = await startOpenAiStub()
  // a task asked "slowly" keeps its plan call waiting: its turn is under way meanwhile
  stub.replyWith((body) => ({
    ...conversationReply(body),
    ...(userText(body).includes("slowly") && requestsFor([body], PLAN_PROMPTS).length > 0 ? { delayMs: 2_500 } : {})
  }))
  const db = freshDatabase()
  await Effect.runPromise(db.setup)
  // one server on the embedded store; two on one PostgreSQL database
  for (let i = 0; i < (backend === "postgres" ? 2 : 1); i++) {
    servers.push(
      await serve({ port: 0, host: "127.0.0.1" }, {
        engine: Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, stubModel(stub))),
        database: Database.layer(db)
      })
    )
  }
})
afterAll(async () => {
  for (const s of servers) await s.stop()
  await stub?.close()
})

const start = (url: string, task: string, thread: string, onBusy = "REJECT") =>
  gql(
    url,
    `mutation($task: String!, $thread: ID, $onBusy: OnBusy) {
      runTask(input: { task: $task, threadId: $thread, onBusy: $onBusy }) { id } }`,
    { task, thread, onBusy }
  )

/** The turns of a thread as it lists them: each run's id and status, in order. */
const turnsOf = async (url: string, thread: string) =>
  ((await gql(url, `query($id: ID!) { thread(id: $id) { turns { edges { node { runId status } } } } }`, {
    id: thread
  })).body.data.thread.turns.edges as Array<{ node: { runId: string; status: string } }>).map((e) => e.node)

describe("turns sent at once on one thread", () => {
  it("the second is refused while the first is under way; once it has ended the next turn sees it", async () => {
    const url = servers[0]!.url
    const first = await start(url, "Think slowly: my seat is 14C.", "busy")
    const second = await start(url, "Which seat is mine?", "busy")
    expect(second.body.errors?.[0]?.extensions?.code).toBe("ThreadBusyError")
    expect(second.body.errors?.[0]?.message).toMatch(/thread busy has a turn under way/)
    await awaitRun(url, first.body.data.runTask.id)
    stub.requests.length = 0
    const again = await start(url, "Which seat is mine?", "busy")
    expect(again.body.errors).toBeUndefined()
    await awaitRun(url, again.body.data.runTask.id)
    for (const r of requestsFor(stub.requests, PLAN_PROMPTS)) expect(userText(r)).toContain("my seat is 14C")
  })

  it("ENQUEUE (the default): the second waits for the first, then starts and sees its answer", async () => {
    const url = servers[0]!.url
    const first = await start(url, "Think slowly: my locker is 31.", "queued", "ENQUEUE")
    stub.requests.length = 0
    const second = await gql(
      url,
      `mutation { runTask(input: { task: "Which locker is mine?", threadId: "queued" }) { id status } }`
    )
    expect(second.body.errors).toBeUndefined()
    const [firstId, secondId] = [first.body.data.runTask.id, second.body.data.runTask.id]
    expect(await awaitRun(url, secondId)).toMatchObject({ status: "CONVERGED" })
    expect(await awaitRun(url, firstId)).toMatchObject({ status: "CONVERGED" })
    // the second began after the first had ended, and its plan quoted the first turn
    const began = await gql(
      url,
      `query($a: ID!, $b: ID!) { a: run(id: $a) { events { type at } } b: run(id: $b) {
      events { type at } } }`,
      { a: firstId, b: secondId }
    )
    const at = (run: any, type: string) => Date.parse(run.events.find((e: any) => e.type === type).at)
    expect(at(began.body.data.b, "RunStarted")).toBeGreaterThanOrEqual(at(began.body.data.a, "RunFinished"))
    const plans = requestsFor(stub.requests, PLAN_PROMPTS).filter((r) => userText(r).includes("Which locker"))
    expect(plans.length).toBeGreaterThan(0)
    for (const r of plans) expect(userText(r)).toContain("my locker is 31")
    expect((await turnsOf(url, "queued")).map((t) => t.runId)).toEqual([firstId, secondId])
  })

  it("INTERRUPT: the turn under way ends CANCELLED and the new one runs", async () => {
    const url = servers[servers.length - 1]!.url
    const first = await start(servers[0]!.url, "Think slowly: count to ten.", "interrupted", "ENQUEUE")
    const second = await start(url, "Never mind: what is 2 + 2?", "interrupted", "INTERRUPT")
    expect(second.body.errors).toBeUndefined()
    expect(await awaitRun(url, first.body.data.runTask.id)).toMatchObject({ status: "CANCELLED" })
    expect(await awaitRun(url, second.body.data.runTask.id)).toMatchObject({ status: "CONVERGED" })
  })

  it.skipIf(backend !== "postgres")(
    "two servers: each sees the thread; two turns at once, one on each, one refused",
    async () => {
      const [a, b] = [servers[0]!.url, servers[1]!.url]
      const first = await start(a, "Remember: the gate is B7.", "shared")
      expect(await awaitRun(a, first.body.data.runTask.id)).toMatchObject({ status: "CONVERGED" })
      stub.requests.length = 0
      const second = await start(b, "Which gate?", "shared")
      expect(await awaitRun(b, second.body.data.runTask.id)).toMatchObject({ status: "CONVERGED" })
      for (const r of requestsFor(stub.requests, PLAN_PROMPTS)) expect(userText(r)).toContain("the gate is B7")
      for (let round = 0; round < 2; round++) {
        const both = await Promise.all([
          start(a, "Answer slowly: one", "shared"),
          start(b, "Answer slowly: two", "shared")
        ])
        const refused = both.filter((r) => r.body.errors?.[0]?.extensions?.code === "ThreadBusyError")
        const started = both.filter((r) => r.body.data?.runTask?.id)
        expect([refused.length, started.length], JSON.stringify(both.map((r) => r.body))).toEqual([1, 1])
        expect(await awaitRun(a, started[0]!.body.data.runTask.id)).toMatchObject({ status: "CONVERGED" })
      }
    }
  )
})

describe("a queued turn taken up again after a restart", () => {
  it("waits, as it did when it was sent, for the turn before it, then sees its answer", async () => {
    // kept across the restart: a data directory of its own on the embedded store
    const fresh = freshDatabase()
    const db = fresh.url ? fresh : { ...fresh, dataDir: mkdtempSync(join(tmpdir(), "aeon-turns-")) }
    await Effect.runPromise(db.setup)
    const serveOn = () =>
      serve({ port: 0, host: "127.0.0.1" }, {
        engine: Layer.mergeAll(Aeon.layerWithTools(), Layer.succeed(LanguageModel, stubModel(stub))),
        database: Database.layer(db)
      })
    const before = await serveOn()
    const first = await start(before.url, "Think slowly: my bike is green.", "restarted", "ENQUEUE")
    const second = await start(before.url, "Which colour is my bike?", "restarted", "ENQUEUE")
    expect(second.body.errors).toBeUndefined()
    await before.stop() // both unfinished: the first in its plan call, the second waiting for it
    stub.requests.length = 0
    const after = await serveOn()
    try {
      expect(await awaitRun(after.url, second.body.data.runTask.id)).toMatchObject({ status: "CONVERGED" })
      expect(await awaitRun(after.url, first.body.data.runTask.id)).toMatchObject({ status: "CONVERGED" })
      // the second planned once the first had ended: its plan quoted the first turn
      const plans = requestsFor(stub.requests, PLAN_PROMPTS).filter((r) => userText(r).includes("Which colour"))
      expect(plans.length).toBeGreaterThan(0)
      for (const r of plans) expect(userText(r)).toContain("my bike is green")
    } finally {
      await after.stop()
    }
  }, 60_000)
})
