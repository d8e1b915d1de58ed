import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { sseResponse } from "../Sse.js"
import * as A2a from "./A2a.js"
import * as AgUi from "./AgUi.js"
import type { ProtocolContext, Reply, Route } from "./Http.js"
import * as OpenAiCompat from "./OpenAiCompat.js"
import * as Responses from "./Responses.js"
import * as UiStream from "./UiStream.js"

/**
 * A browser page of another origin may call the protocols as it calls /graphql (graphql-yoga's CORS: the request's
 * origin allowed, with credentials): a preflight answered, the response readable, its run id header exposed. Origins
 * are checked before this, as on every route: a server without API keys answers only this machine's.
 */
const corsOf = (req: IncomingMessage) => {
  const origin = req.headers.origin
  if (origin === undefined) return { headers: {}, preflight: false }
  const allowed = { "access-control-allow-origin": origin, "access-control-allow-credentials": "true", vary: "Origin" }
  if (req.method !== "OPTIONS") {
    return { headers: { ...allowed, "access-control-expose-headers": "x-aeon-run-id" }, preflight: false }
  }
  return {
    headers: {
      ...allowed,
      "access-control-allow-methods": String(req.headers["access-control-request-method"] ?? "GET, POST"),
      "access-control-allow-headers": String(
        req.headers["access-control-request-headers"] ?? "content-type, authorization"
      ),
      "access-control-max-age": "600"
    },
    preflight: true
  }
}

/** A reply as the router's response, with the CORS headers. */
const responseOf = (reply: Reply, cors: Record<string, string>) => {
  switch (reply._tag) {
    case "Json":
      return HttpServerResponse.text(JSON.stringify(reply.body), {
        status: reply.status,
        contentType: "application/json",
        headers: { ...cors, ...reply.headers }
      })
    case "Empty":
      return HttpServerResponse.empty({ status: reply.status, headers: { ...cors, ...reply.headers } })
    case "Frames":
      return sseResponse({ ...cors, ...reply.headers }, reply.frames, reply.onFailure)
  }
}

/**
 * A protocol's route run: its CORS first (a preflight is answered there), another method refused and a handler that
 * failed answered in the protocol's words; the handler's signal is aborted when the client goes away (the platform
 * interrupts the request's fiber).
 */
export const routed = (route: Route) => {
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const params = yield* HttpRouter.params
    const req = NodeHttpServerRequest.toIncomingMessage(request)
    const cors = corsOf(req)
    if (cors.preflight) return HttpServerResponse.empty({ status: 204, headers: cors.headers })
    const methods: ReadonlyArray<string> = typeof route.method === "string" ? [route.method] : route.method
    if (!methods.includes(req.method ?? "")) {
      return responseOf(route.refuse(405, "METHOD_NOT_ALLOWED", `${methods.join(" or ")} only`), cors.headers)
    }
    const reply = yield* Effect.tryPromise((signal) => route.handle({ req, params, signal })).pipe(
      // what failed stays in the server's log; the client is told "internal error" in the protocol's words
      Effect.tapErrorCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError(`${route.path}: the request failed`, cause)
      ),
      Effect.orElseSucceed(() => route.refuse(500, "INTERNAL", "internal error"))
    )
    return responseOf(reply, cors.headers)
  })
}

/**
 * The protocols other front-ends and agents speak, mounted beside /graphql (the same keys, Host checks and body
 * limit): each an adapter over the run manager and the run's log, keeping no state of its own, its routes data on
 * @effect/platform's HttpRouter.
 */
export const make = (ctx: ProtocolContext & { readonly version: string }) => {
  const routes = [
    ...OpenAiCompat.routes(ctx),
    ...Responses.routes(ctx),
    ...AgUi.routes(ctx),
    ...UiStream.routes(ctx),
    ...A2a.routes(ctx)
  ]
  const router = routes.reduce(
    (router, route) => HttpRouter.route("*")(router, route.path, routed(route)),
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
