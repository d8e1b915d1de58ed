import { Option, Redacted } from "effect"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { noWebhooks, type Settings } from "../../src/domain/Webhook.js"
import { gql, waitFor } from "./server.js"
import { Arrivals } from "./until.js"

/** The signing secret the test receivers verify with. */
export const SECRET = `whsec_${Buffer.from("a secret of thirty-two bytes, ok!").toString("base64")}`

export interface Received {
  /** The path POSTed to (a test tells its webhooks apart by it). */
  readonly path: string
  readonly id: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly payload: any
}

/**
 * A webhook receiver on a loopback port, verifying each POST with the `standardwebhooks` package: answers with the
 * next status of `answer`'s (then 200), keeps what it got in order, and wakes a test's wait on each POST.
 */
export const receiver = async () => {
  const arrived = new Arrivals<Received>()
  let statuses: Array<number> = []
  const server: Server = createServer((req, res) => {
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", () => {
      const status = statuses.shift() ?? 200
      const payload = new Webhook(SECRET).verify(body, req.headers as Record<string, string>)
      arrived.push({ path: req.url ?? "", id: String(req.headers["webhook-id"]), headers: req.headers, body, payload })
      res.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const settings: Settings = { ...noWebhooks, hosts: [`127.0.0.1:${port}`], secret: Option.some(Redacted.make(SECRET)) }
  return {
    got: arrived.all,
    /** The first POST `match` accepts, once it has come. */
    next: (match: (g: Received) => boolean) => arrived.until((all) => all.find(match)),
    /** Everything received, once `done` holds of it. */
    until: (done: (all: ReadonlyArray<Received>) => boolean, timeoutMs?: number) =>
      arrived.until((all) => (done(all) ? all : undefined), timeoutMs),
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    /** The server settings that let webhooks come here, signed with SECRET. */
    settings,
    /** The environment saying the same to a server process. */
    env: { AEON_WEBHOOK_HOSTS: `127.0.0.1:${port}`, AEON_WEBHOOK_SECRET: SECRET },
    answer: (next: Array<number>) => void (statuses = next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export type Delivery = {
  readonly event: string
  readonly attempt: number
  readonly httpStatus: number | null
  readonly error: string | null
  readonly delivered: boolean
}

/**
 * A run's webhook delivery attempts (`fields` of each) once `wanted` holds of them. An attempt is written when the
 * receiver's answer has come back — after the POST a test saw, and announced by nothing (no event, no notification) —,
 * so this is the one wait on deliveries that reads them again until they are there.
 */
export const deliveriesOnRecord = (
  url: string,
  id: string,
  wanted: (deliveries: ReadonlyArray<Delivery>) => boolean,
  fields = "event attempt httpStatus error delivered"
) =>
  waitFor(async () => {
    const run = (await gql(url, `query($id: ID!) { run(id: $id) { webhookDeliveries { ${fields} } } }`, { id })).body
      .data!.run
    return wanted(run.webhookDeliveries) ? run.webhookDeliveries as ReadonlyArray<Delivery> : undefined
  })

/** Once one of them is on record as delivered. */
export const delivered = (deliveries: ReadonlyArray<Delivery>) => deliveries.some((d) => d.delivered)
