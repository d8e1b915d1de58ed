import { Effect, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { backend, freshDatabase } from "../support/database.js"
import { exited, startProcess } from "../support/process.js"
import { awaitRun, gql } from "../support/server.js"
import { Arrivals } from "../support/until.js"
import { delivered, deliveriesOnRecord } from "../support/webhooks.js"

/**
 * A webhook delivery pending when its server is killed (#73.1): the first attempt refused, the server killed with
 * SIGKILL before the retry; the restarted server makes it — once, with the same webhook-id.
 */
describe(`a webhook pending at a kill -9 (${backend})`, () => {
  it("is delivered after the restart, once, with the same id", async () => {
    const posts = new Arrivals<{ id: string; status: number }>()
    const got = posts.all
    const statuses = [500]
    const receiver = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        const status = statuses.shift() ?? 200
        posts.push({ id: String(req.headers["webhook-id"]), status })
        res.writeHead(status).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    const port = (receiver.address() as AddressInfo).port
    const db = freshDatabase()
    await Effect.runPromise(db.setup)
    const env: Record<string, string> = {
      AEON_PORT: "0",
      AEON_DATA_DIR: join(mkdtempSync(join(tmpdir(), "aeon-webhook-kill-")), "data"),
      AEON_WEBHOOK_HOSTS: `127.0.0.1:${port}`,
      AEON_WEBHOOK_SECRET: `whsec_${Buffer.from("kill -9").toString("base64")}`,
      AEON_WEBHOOK_RETRY_MS: "2000",
      ...(db.url ? { AEON_DATABASE_URL: Redacted.value(db.url) } : {})
    }
    try {
      const first = startProcess(env)
      const url1 = await first.url
      const started = await gql(
        url1,
        `mutation($url: String!) { runTask(input: { task: "Compute 17 + 25", webhook: { url: $url } }) { id } }`,
        { url: `http://127.0.0.1:${port}/hooks` }
      )
      const id = started.body.data.runTask.id as string
      await awaitRun(url1, id)
      // the refused attempt made and recorded: its retry is pending
      await deliveriesOnRecord(url1, id, (deliveries) => deliveries.length === 1)
      first.child.kill("SIGKILL")
      await exited(first.child)

      const second = startProcess(env)
      const url2 = await second.url
      await posts.until((all) => (all.length >= 2 ? true : undefined))
      const deliveries = await deliveriesOnRecord(url2, id, delivered, "attempt httpStatus delivered")
      second.child.kill("SIGINT")
      await exited(second.child)
      expect(deliveries).toEqual([
        { attempt: 1, httpStatus: 500, delivered: false },
        { attempt: 2, httpStatus: 200, delivered: true }
      ])
      expect(got.map((g) => g.status)).toEqual([500, 200])
      expect(new Set(got.map((g) => g.id)).size).toBe(1)
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()))
    }
  }, 120_000)
})
