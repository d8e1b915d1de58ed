import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"

/** A handler that writes its Node response itself (yoga's, the MCP SDK's, a protocol's SSE through server/Sse). */
export type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Readonly<Record<string, string | undefined>>
) => void

/**
 * A Node handler as a route of @effect/platform's HttpRouter: it is handed the request's Node objects and the route's
 * path parameters; the route is done when its response is (a client going away ends it too).
 */
export const nodeRoute = (handle: NodeHandler) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const params = yield* HttpRouter.params
    const res = NodeHttpServerRequest.toServerResponse(request)
    yield* Effect.async<void>((resume) => {
      res.once("close", () => resume(Effect.void))
      handle(NodeHttpServerRequest.toIncomingMessage(request), res, params)
    })
    return HttpServerResponse.empty()
  })
