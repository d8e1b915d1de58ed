import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { json, type Route } from "../../src/server/protocols/Http.js"
import { routed } from "../../src/server/protocols/Protocols.js"

/**
 * The runner every protocol's route goes through: a handler's reply written, another method and a failed handler
 * answered with the route's own refusals — what failed never shown to the client —, a preflight answered.
 */
let server: Server | undefined
afterEach(() => server?.close())

const serve = (route: Route) =>
  new Promise<string>((resolve) => {
    const router = HttpRouter.empty.pipe(HttpRouter.all(route.path, routed(route)))
    server = createServer(Effect.runSync(NodeHttpServer.makeHandler(router)))
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`))
  })

const refuse = (status: number, code: string, message: string) => json(status, { failure: { code, message } })

describe("the protocols' route runner", () => {
  it("writes the handler's reply; refuses another method and a failed handler in the route's words", async () => {
    let fail = false
    const base = await serve({
      method: "POST",
      path: "/p",
      handle:
        () => (fail ? Promise.reject(new Error("secret detail at /srv/x.ts")) : Promise.resolve(json(201, { ok: 1 }))),
      refuse
    })
    const ok = await fetch(`${base}/p`, { method: "POST" })
    expect(ok.status).toBe(201)
    expect(await ok.json()).toEqual({ ok: 1 })
    const get = await fetch(`${base}/p`)
    expect(get.status).toBe(405)
    expect(await get.json()).toEqual({ failure: { code: "METHOD_NOT_ALLOWED", message: "POST only" } })
    fail = true
    const failed = await fetch(`${base}/p`, { method: "POST" })
    expect(failed.status).toBe(500)
    const text = await failed.text()
    expect(JSON.parse(text)).toEqual({ failure: { code: "INTERNAL", message: "internal error" } })
    expect(text).not.toContain("secret")
  })

  it("answers a preflight from another origin, and exposes the run id header on its replies", async () => {
    const base = await serve({ method: "POST", path: "/p", handle: () => Promise.resolve(json(200, {})), refuse })
    const origin = "http://localhost:5173"
    const preflight = await fetch(`${base}/p`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST" }
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe(origin)
    const posted = await fetch(`${base}/p`, { method: "POST", headers: { origin } })
    expect(posted.headers.get("access-control-expose-headers")).toBe("x-aeon-run-id")
  })
})
