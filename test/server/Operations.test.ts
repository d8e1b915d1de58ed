import { Option, Redacted } from "effect"
import { createClient as createWsClient } from "graphql-ws"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import WebSocket from "ws"
import { PromptId } from "../../src/prompts/PromptId.js"
import { RunManager } from "../../src/runs/RunManager.js"
import { backend, freshDatabase } from "../support/database.js"
import { convergingScript, reasoned } from "../support/scripts.js"
import { gql, startServer, untilEvent, untilStatus, waitFor } from "../support/server.js"

const slow = (ms: number) => ({
  ...convergingScript(),
  [PromptId.REASONING_STEP_USER]: [{ ...reasoned("6 * 7 = 42"), delayMs: ms }]
})
const START = `mutation($input: RunTaskInput!) { runTask(input: $input) { id status } }`
const statusOf = async (url: string, id: string, headers: Record<string, string> = {}) =>
  (await gql(url, `query($id: ID!) { run(id: $id) { status } }`, { id }, headers)).body.data?.run?.status as
    | string
    | undefined

describe("authentication", () => {
  it("requires a key when keys are configured; a user sees only their own runs", async () => {
    const server = await startServer({
      script: convergingScript(),
      config: { apiKeys: Option.some(Redacted.make("key-alice:alice,key-bob:bob")) }
    })
    try {
      const none = await gql(server.url, "{ health { ok } }")
      expect(none.status).toBe(401)
      expect(none.body.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED")
      expect((await gql(server.url, "{ health { ok } }", {}, { authorization: "Bearer wrong" })).status).toBe(401)
      const alice = { authorization: "Bearer key-alice" }
      const bob = { authorization: "Bearer key-bob" }
      const started = await gql(
        server.url,
        START,
        { input: { task: "Compute 6 * 7 and explain it", mode: "FULL" } },
        alice
      )
      const id = started.body.data.runTask.id
      await untilStatus(server.url, id, "CONVERGED", { headers: alice })
      expect((await gql(server.url, `query($id: ID!) { run(id: $id) { userId } }`, { id }, alice)).body.data.run.userId)
        .toBe("alice")
      expect(await statusOf(server.url, id, bob)).toBeUndefined()
      expect((await gql(server.url, "{ runs { edges { node { id } } } }", {}, bob)).body.data.runs.edges).toEqual([])
      expect((await gql(server.url, "{ runs { edges { node { id } } } }", {}, alice)).body.data.runs.edges)
        .toHaveLength(1)
      expect(
        (await gql(server.url, `mutation($id: ID!) { cancelRun(id: $id) { id } }`, { id }, bob)).body.errors?.[0]
          ?.extensions?.code
      ).toBe("RunNotFoundError")
      const spoof = await gql(server.url, START, { input: { task: "x", userId: "alice" } }, bob)
      expect(spoof.body.errors?.[0]?.extensions?.code).toBe("InvalidRunInputError")
      // WebSocket: refused without a key, accepted with one
      const refused = createWsClient({
        url: server.url.replace("http", "ws"),
        webSocketImpl: WebSocket,
        retryAttempts: 0
      })
      const attempt = refused.iterate({
        query: "subscription($id: ID!) { runEvents(runId: $id) { seq } }",
        variables: { id }
      })
      const closed = await (async () => {
        for await (const _ of attempt) return undefined
      })().then(() => undefined, (e) => e)
      expect(closed?.code).toBe(4403) // graphql-ws: Forbidden, the connection was refused
      refused.dispose()
      const accepted = createWsClient({
        url: server.url.replace("http", "ws"),
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: { authorization: "Bearer key-alice" }
      })
      const seqs: Array<number> = []
      for await (
        const r of accepted.iterate<{ runEvents: { seq: number } }>({
          query: "subscription($id: ID!) { runEvents(runId: $id) { seq } }",
          variables: { id }
        })
      ) seqs.push(r.data!.runEvents.seq)
      expect(seqs[0]).toBe(1)
      accepted.dispose()
    } finally {
      await server.stop()
    }
  })
})

describe("run scheduling", () => {
  it("beyond AEON_MAX_CONCURRENT_RUNS runs wait as QUEUED, in order", async () => {
    const server = await startServer({ script: slow(100), config: { maxConcurrentRuns: 1 } })
    try {
      const ids: Array<string> = []
      const statuses: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const r = await gql(server.url, START, { input: { task: "Compute 6 * 7 and explain it", mode: "FULL" } })
        ids.push(r.body.data.runTask.id)
        statuses.push(r.body.data.runTask.status)
      }
      expect(statuses.slice(1)).toEqual(["QUEUED", "QUEUED"])
      const health = (await gql(server.url, "{ health { activeRuns queuedRuns } }")).body.data.health
      expect(health.activeRuns).toBe(1)
      expect(health.queuedRuns).toBeGreaterThanOrEqual(1)
      await untilStatus(server.url, ids[2]!, "CONVERGED")
      const finishedAt = await Promise.all(
        ids.map(async (id) =>
          (await gql(server.url, `query($id: ID!) { run(id: $id) { updatedAt } }`, { id })).body.data.run
            .updatedAt as string
        )
      )
      expect([...finishedAt].sort()).toEqual(finishedAt)
    } finally {
      await server.stop()
    }
  })

  it("a run cancelled while it waits for a slot ends CANCELLED (stored so), and never starts", async () => {
    const server = await startServer({ script: slow(300), config: { maxConcurrentRuns: 1 } })
    try {
      const start = async () =>
        (await gql(server.url, START, { input: { task: "Compute 6 * 7 and explain it", mode: "FULL" } })).body.data
          .runTask.id as string
      const first = await start()
      const queued = await start()
      expect(await statusOf(server.url, queued)).toBe("QUEUED")
      const r = await gql(server.url, `mutation($id: ID!) { cancelRun(id: $id) { status } }`, { id: queued })
      expect(r.body.data.cancelRun.status).toBe("CANCELLED")
      await untilStatus(server.url, first, "CONVERGED")
      const events = (await gql(server.url, `query($id: ID!) { run(id: $id) { events { type } } }`, { id: queued }))
        .body.data.run.events.map((e: { type: string }) => e.type)
      expect(events).toEqual(["RunFinished"])
      const listed = (await gql(server.url, `{ runs(status: CANCELLED) { edges { node { id } } } }`)).body.data.runs
      expect(listed.edges.map((e: { node: { id: string } }) => e.node.id)).toContain(queued)
    } finally {
      await server.stop()
    }
  })

  it("one user's runs run one at a time; the per-user lock goes away when the user has no run left", async () => {
    const server = await startServer({ script: slow(50) })
    try {
      const ids: Array<string> = []
      for (const userId of ["u1", "u1", "u2"]) {
        const r = await gql(server.url, START, {
          input: { task: "Compute 6 * 7 and explain it", mode: "FULL", userId }
        })
        ids.push(r.body.data.runTask.id)
      }
      const manager = await server.runtime.runPromise(RunManager)
      // held while runs wait or run: u1's second run waits behind its first
      await untilEvent(server.url, ids[0]!, "RunStarted")
      expect(manager.stats().userLocks).toBeGreaterThanOrEqual(1)
      for (const id of ids) {
        await untilStatus(server.url, id, "CONVERGED")
      }
      await waitFor(async () => (manager.stats().userLocks === 0 ? true : undefined))
    } finally {
      await server.stop()
    }
  })

  it(`a shutdown leaves unfinished runs RUNNING; the next start resumes them (${backend})`, async () => {
    const base = freshDatabase()
    const db = backend === "sqlite" ? { ...base, dataDir: mkdtempSync(join(tmpdir(), "aeon-shutdown-")) } : base
    const first = await startServer({ script: slow(500), db })
    const id =
      (await gql(first.url, START, { input: { task: "Compute 6 * 7 and explain it", mode: "FULL" } })).body.data.runTask
        .id
    await untilEvent(first.url, id, "StepStarted")
    await first.stop()
    const second = await startServer({ script: slow(10), db })
    try {
      expect(second.resumed).toBe(1)
      await untilStatus(second.url, id, "CONVERGED")
      const events = (await gql(second.url, `query($id: ID!) { run(id: $id) { events { seq type } } }`, { id })).body
        .data.run.events as Array<{ seq: number; type: string }>
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      expect(events.filter((e) => e.type === "RunFinished")).toHaveLength(1)
    } finally {
      await second.stop()
    }
  })
})
