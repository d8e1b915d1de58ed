import { Option, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { noWebhooks } from "../src/domain/Webhook.js"
import { serve } from "../src/launch/App.js"
import * as Database from "../src/store/Database.js"

/**
 * Row 63 (#73): no webhook lost. 200 runs, each with a webhook to a receiver that refuses 30 % of the POSTs it gets
 * (a 500, drawn at random); retried every 50 ms (doubling), up to 12 attempts. Counted: the ids delivered (a 2xx) —
 * each once —, the POSTs made, the time from the last run's end to the last delivery. Beside it, the floor: the same
 * 200 runs on the same server without a webhook (what the outbox adds to a run's wall time).
 */
export const webhookSoak = async (runs = 200) => {
  const delivered = new Map<string, number>()
  let posts = 0
  const receiver = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      posts++
      const refuse = Math.random() < 0.3
      if (!refuse) {
        const id = String(req.headers["webhook-id"])
        delivered.set(id, (delivered.get(id) ?? 0) + 1)
      }
      res.writeHead(refuse ? 500 : 200).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const port = (receiver.address() as AddressInfo).port
  const server = await serve({ port: 0, host: "127.0.0.1" }, {
    database: Database.layer({ dataDir: mkdtempSync(join(tmpdir(), "aeon-bench-webhooks-")) }),
    webhooks: {
      ...noWebhooks,
      hosts: [`127.0.0.1:${port}`],
      secret: Option.some(Redacted.make(`whsec_${Buffer.from("bench").toString("base64")}`)),
      retryMs: 50,
      attempts: 12
    }
  })
  const gql = (query: string, variables: object) =>
    fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, variables })
    }).then((r) => r.json() as Promise<any>)
  const wave = async (webhook: boolean) => {
    const started = performance.now()
    const ids = await Promise.all(Array.from({ length: runs }, (_, i) =>
      gql(
        `mutation($input: RunTaskInput!) { runTask(input: $input) { id } }`,
        {
          input: {
            task: `Compute ${i} + 1`,
            mode: "SIMPLE",
            memory: false,
            ...(webhook ? { webhook: { url: `http://127.0.0.1:${port}/hooks` } } : {})
          }
        }
      ).then((r) => r.data.runTask.id as string)))
    // every run's end, read back
    for (const id of ids) {
      for (;;) {
        const r = await gql(`query($id: ID!) { run(id: $id) { status } }`, { id })
        if (["CONVERGED", "NOT_CONVERGED", "FAILED", "CANCELLED"].includes(r.data.run.status)) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    return { ids, wallMs: performance.now() - started }
  }
  try {
    const floor = await wave(false)
    const hooked = await wave(true)
    const ended = performance.now()
    const deadline = ended + 60_000
    while (hooked.ids.some((id) => ![...delivered.keys()].some((k) => k.startsWith(`msg_${id}_`)))) {
      if (performance.now() > deadline) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const drainMs = performance.now() - ended
    const missing = hooked.ids.filter((id) => ![...delivered.keys()].some((k) => k.startsWith(`msg_${id}_`))).length
    const twice = [...delivered.values()].filter((n) => n > 1).length
    return {
      runs,
      floorMs: floor.wallMs,
      hookedMs: hooked.wallMs,
      posts,
      delivered: delivered.size,
      missing,
      twice,
      drainMs
    }
  } finally {
    await server.stop()
    await new Promise<void>((resolve) => receiver.close(() => resolve()))
  }
}
