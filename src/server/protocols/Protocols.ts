import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect } from "effect"
import { readJson } from "../Body.js"
import { sseResponse } from "../Sse.js"
import * as A2a from "./A2a.js"
import * as AgUi from "./AgUi.js"
import type { HttpRequestView, ProtocolContext, Reply, Route } from "./Http.js"
import * as OpenAiCompat from "./OpenAiCompat.js"
import * as Responses from "./Responses.js"
import * as UiStream from "./UiStream.js"

/** A reply as the router's response. */
const responseOf = (reply: Reply) => {
  switch (reply._tag) {
    case "Json":
      return HttpServerResponse.text(JSON.stringify(reply.body), {
        status: reply.status,
        contentType: "application/json",
        headers: reply.headers
      })
    case "Empty":
      return HttpServerResponse.empty({ status: reply.status, headers: reply.headers })
    case "Frames":
      return sseResponse(reply.headers, reply.frames, reply.onFailure)
  }
}

/**
 * A browser page of another origin may call the protocols as it calls /graphql (graphql-yoga's CORS: the request's
 * origin allowed, with credentials): a preflight answered, the response readable, its run id header exposed — the
 * platform's CORS middleware. Origins are checked before this, as on every route: a server without API keys answers
 * only this machine's.
 */
const cors = HttpMiddleware.cors({
  allowedOrigins: (origin) => typeof origin === "string",
  credentials: true,
  exposedHeaders: ["x-aeon-run-id"],
  maxAge: 600
})

/**
 * A protocol's route run: another method refused and a handler that failed answered in the protocol's words; the
 * handler's signal is aborted when the client goes away (the platform interrupts the request's fiber).
 */
export const routed = (route: Route) => cors(handled(route))

/**
 * A reply's own `Vary` (A2A's card varies by A2A-Version) kept beside the one the CORS middleware sets (Origin): its
 * headers are set as the response is written, after the route's.
 */
const keepVary = (vary: string | undefined) =>
  vary === undefined ?
    Effect.void :
    HttpApp.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeader(
        response,
        "vary",
        [...new Set([vary, response.headers.vary])].filter((v) => v !== undefined).join(", ")
      ))
    )

const handled = (route: Route) => {
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const params = yield* HttpRouter.params
    const req: HttpRequestView = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      json: (maxBytes) => readJson(NodeHttpServerRequest.toIncomingMessage(request), maxBytes)
    }
    const methods: ReadonlyArray<string> = typeof route.method === "string" ? [route.method] : route.method
    if (!methods.includes(req.method)) {
      return responseOf(route.refuse(405, "METHOD_NOT_ALLOWED", `${methods.join(" or ")} only`))
    }
    const reply = yield* Effect.tryPromise((signal) => route.handle({ req, params, signal })).pipe(
      // what failed stays in the server's log; the client is told "internal error" in the protocol's words
      Effect.tapErrorCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError(`${route.path}: the request failed`, cause)
      ),
      Effect.orElseSucceed(() => route.refuse(500, "INTERNAL", "internal error"))
    )
    yield* keepVary(reply.headers.vary)
    return responseOf(reply)
  })
}

/**
 * The protocols other front-ends and agents speak, mounted beside /graphql (the same keys, Host checks and body
 * limit): each an adapter over the run manager and the run's log, keeping no state of its own, its routes data on
 * @effect/platform's HttpRouter.
 */
export const router = (ctx: ProtocolContext & { readonly version: string }) => {
  const routes = [
    ...OpenAiCompat.routes(ctx),
    ...Responses.routes(ctx),
    ...AgUi.routes(ctx),
    ...UiStream.routes(ctx),
    ...A2a.routes(ctx)
  ]
  return routes.reduce(
    (router, route) => HttpRouter.route("*")(router, route.path, routed(route)),
    HttpRouter.empty
  )
}
