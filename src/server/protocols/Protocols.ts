import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { nodeRoute } from "../NodeRoute.js"
import * as A2a from "./A2a.js"
import * as AgUi from "./AgUi.js"
import type { ProtocolContext, Route } from "./Http.js"
import * as OpenAiCompat from "./OpenAiCompat.js"
import * as UiStream from "./UiStream.js"

/**
 * A browser page of another origin may call the protocols as it calls /graphql (graphql-yoga's CORS: the request's
 * origin allowed, with credentials): a preflight answered, the response readable, its run id header exposed. Origins
 * are checked before this, as on every route: a server without API keys answers only this machine's.
 */
const cors = (req: IncomingMessage, res: ServerResponse): boolean => {
  const origin = req.headers.origin
  if (origin === undefined) return false
  res.setHeader("access-control-allow-origin", origin)
  res.setHeader("access-control-allow-credentials", "true")
  res.setHeader("vary", "Origin")
  if (req.method !== "OPTIONS") {
    res.setHeader("access-control-expose-headers", "x-aeon-run-id")
    return false
  }
  res.writeHead(204, {
    "access-control-allow-methods": String(req.headers["access-control-request-method"] ?? "GET, POST"),
    "access-control-allow-headers": String(
      req.headers["access-control-request-headers"] ?? "content-type, authorization"
    ),
    "access-control-max-age": "600"
  }).end()
  return true
}

/** A protocol's route: its CORS first (a preflight is answered there), then its handler. */
const routed = (route: Route) =>
  nodeRoute((req, res, params) => {
    if (!cors(req, res)) route.handle(req, res, params)
  })

/**
 * The protocols other front-ends and agents speak, mounted beside /graphql (the same keys, Host checks and body
 * limit): each an adapter over the run manager and the run's log, keeping no state of its own, its routes data on
 * @effect/platform's HttpRouter.
 */
export const make = (ctx: ProtocolContext & { readonly version: string }) => {
  const routes = [...OpenAiCompat.routes(ctx), ...AgUi.routes(ctx), ...UiStream.routes(ctx), ...A2a.routes(ctx)]
  const router = routes.reduce(
    (router, route) => HttpRouter.route(route.method)(router, route.path, routed(route)),
    HttpRouter.empty
  )
  const handler = Runtime.runSync(ctx.runtime)(NodeHttpServer.makeHandler(router))
  /** The paths the routes answer, read from them (a `:param` is one segment). */
  const answered = new RegExp(
    `^(${routes.map((r) => r.path.replace(/[.]/g, "\\.").replace(/:[^/]+/g, "[^/]+")).join("|")})$`
  )
  /** True when the request was one of theirs (it is answered). */
  return (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    if (!answered.test(path)) return false
    handler(req, res)
    return true
  }
}
