import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"

// `aeon run` with AEON_WEBHOOK_URL (#73.1): the run's end POSTed, signed, to a host the operator allows; a URL whose host
// is not allowed stops the command before anything runs
const SECRET = `whsec_${Buffer.from("the CLI's webhook secret, 32 b.!").toString("base64")}`
const got: Array<any> = []
const receiver = createServer((req, res) => {
  let body = ""
  req.on("data", (d) => (body += d))
  req.on("end", () => {
    got.push(new Webhook(SECRET).verify(body, req.headers as Record<string, string>))
    res.writeHead(204).end()
  })
})
let port = 0
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  port = (receiver.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))

describe("aeon run with AEON_WEBHOOK_URL", () => {
  it(
    "tells the run's end to an allowed host, signed; a URL whose host is not allowed stops the command, nothing runs",
    async () => {
      const { aeon, env } = cliIn("aeon-webhook-cli-")
      env.AEON_WEBHOOK_HOSTS = `127.0.0.1:${port}`
      env.AEON_WEBHOOK_SECRET = SECRET
      env.AEON_WEBHOOK_URL = `http://127.0.0.1:${port}/end`
      const ran = await aeon("run", "--json", "Compute 17 + 25")
      expect(ran.stderr).toBe("")
      expect(ran.code).toBe(0)
      const runId = JSON.parse(ran.stdout).runId
      expect(got).toHaveLength(1)
      expect(got[0]).toMatchObject({ type: "run.finished", data: { runId, status: "CONVERGED" } })

      env.AEON_WEBHOOK_URL = "http://127.0.0.1:9/end"
      const refused = await aeon("run", "Compute 17 + 25")
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain(
        "AEON_WEBHOOK_URL http://127.0.0.1:9/end: its host must be one of AEON_WEBHOOK_HOSTS"
      )
      const listed = await aeon("runs", "--json")
      expect(JSON.parse(listed.stdout).map((r: { id: string }) => r.id)).toEqual([runId])
    },
    60_000
  )
})
