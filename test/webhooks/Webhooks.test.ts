import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Settings } from "../../src/domain/Webhook.js"
import { backend, freshDatabase } from "../support/database.js"
import { awaitRun, gql, startServer, type TestServer } from "../support/server.js"
import { delivered, deliveriesOnRecord, receiver, SECRET } from "../support/webhooks.js"

/**
 * Run-end webhooks (#73.1) as a receiver sees them: each POST verified with the `standardwebhooks` package, its body
 * the run's end; retried with the same webhook-id after a refusal; only to the hosts the operator allows.
 */
let hooks: Awaited<ReturnType<typeof receiver>>
let server: TestServer
const settings = (): Settings => ({ ...hooks.settings, retryMs: 100, attempts: 4 })

beforeAll(async () => {
  hooks = await receiver()
  server = await startServer({ webhooks: settings() })
})
afterAll(async () => {
  await server?.stop()
  await hooks?.close()
})

const start = async (url: string, webhook: Record<string, unknown>, more = "") => {
  const r = await gql(
    url,
    `mutation($w: WebhookInput) { runTask(input: { task: "Compute 17 + 25", mode: FULL, webhook: $w${more} }) { id } }`,
    {
      w: webhook
    }
  )
  return r
}

describe("run webhooks, as a standardwebhooks receiver verifies them", () => {
  it("run.finished: delivered once the run ends, signed, its body the run's end; the run lists the attempt", async () => {
    const r = await start(server.url, { url: hooks.url })
    const id = r.body.data!.runTask.id as string
    await awaitRun(server.url, id)
    const got = await hooks.next((g) => g.payload.data.runId === id)
    expect(got.payload).toMatchObject({
      type: "run.finished",
      data: { runId: id, status: "CONVERGED", errorCode: null }
    })
    expect(got.payload.data.finalAnswer.answerText).toContain("42")
    expect(got.payload.data.usage.llmCalls).toBeGreaterThan(0)
    expect(got.headers["webhook-id"]).toMatch(/^msg_/)
    // a tampered body is refused by the verifier: the signature covers it
    expect(() => new Webhook(SECRET).verify(got.body.replace("42", "43"), got.headers as Record<string, string>))
      .toThrow()
    // the attempt is kept once its answer has come back: a moment after the receiver has the POST
    expect(await deliveriesOnRecord(server.url, id, delivered)).toEqual([
      { event: "run.finished", attempt: 1, httpStatus: 200, error: null, delivered: true }
    ])
  })

  it("a refusal is retried with the same webhook-id until delivered; each attempt is listed", async () => {
    hooks.answer([500, 503])
    const id = (await start(server.url, { url: hooks.url })).body.data!.runTask.id as string
    await awaitRun(server.url, id)
    const deliveries = await deliveriesOnRecord(server.url, id, delivered)
    expect(deliveries.map((d) => d.httpStatus)).toEqual([500, 503, 200])
    expect(deliveries.map((d) => d.attempt)).toEqual([1, 2, 3])
    const ids = hooks.got.filter((g) => g.payload.data.runId === id).map((g) => g.id)
    expect(ids).toHaveLength(3)
    expect(new Set(ids).size).toBe(1)
  })

  it("run.started and run.awaiting_input when asked for: the run waiting for its plan's approval says so", async () => {
    const id = (await start(server.url, {
      url: hooks.url,
      events: ["run.started", "run.awaiting_input", "run.finished"]
    }, ", approvePlan: true")).body.data!.runTask.id as string
    const waiting = await hooks.next((g) => g.payload.data.runId === id && g.payload.type === "run.awaiting_input")
    expect(waiting.payload.data.status).toBe("AWAITING_INPUT")
    expect(waiting.payload.data.requests[0].requestId).toBeTruthy()
    const types = hooks.got.filter((g) => g.payload.data.runId === id).map((g) => g.payload.type)
    expect(types).toEqual(["run.started", "run.awaiting_input"])
    await gql(server.url, `mutation($id: ID!) { cancelRun(id: $id) { status } }`, { id })
    const ended = await hooks.next((g) => g.payload.data.runId === id && g.payload.type === "run.finished")
    expect(ended.payload.data.status).toBe("CANCELLED")
  })

  it("a URL whose host is not allowed is refused, coded, and nothing is stored", async () => {
    const before = (await gql(server.url, `{ runs(first: 100) { edges { node { id } } } }`)).body.data
    for (const url of ["http://127.0.0.1:9/hooks", "http://example.com/hooks", "ftp://127.0.0.1/x", "not a url"]) {
      const r = await start(server.url, { url })
      expect(r.body.errors?.[0]?.extensions?.code, url).toBe("WEBHOOK_URL_NOT_ALLOWED")
      expect(r.body.data?.runTask ?? null).toBeNull()
    }
    const after = (await gql(server.url, `{ runs(first: 100) { edges { node { id } } } }`)).body.data
    expect(after).toEqual(before)
  })
})

describe.skipIf(backend !== "postgres")("run webhooks on servers sharing PostgreSQL", () => {
  it("each delivery is made by one server, once", async () => {
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const a = await startServer({ db, webhooks: settings() })
    const b = await startServer({ db, webhooks: settings() })
    try {
      const ids: Array<string> = []
      for (let i = 0; i < 6; i++) {
        ids.push((await start((i % 2 ? b : a).url, { url: hooks.url })).body.data!.runTask.id as string)
      }
      for (const id of ids) await awaitRun(a.url, id)
      await hooks.until((all) => ids.every((id) => all.some((g) => g.payload.data.runId === id)))
      // each recorded delivered (a second server taking one at the same time would have posted it by then)
      for (const id of ids) await deliveriesOnRecord(a.url, id, delivered)
      for (const id of ids) expect(hooks.got.filter((g) => g.payload.data.runId === id), id).toHaveLength(1)
    } finally {
      await a.stop()
      await b.stop()
    }
  }, 60_000)
})
