import type { IncomingMessage, ServerResponse } from "node:http"
import * as A2a from "./A2a.js"
import * as AgUi from "./AgUi.js"
import type { ProtocolContext } from "./Http.js"
import * as OpenAiCompat from "./OpenAiCompat.js"
import * as UiStream from "./UiStream.js"

/**
 * The protocols other front-ends and agents speak, mounted beside /graphql (the same keys, Host checks and body
 * limit): each an adapter over the run manager and the run's log, keeping no state of its own.
 */
export const make = (ctx: ProtocolContext & { readonly version: string }) => {
  const routes = [OpenAiCompat.handle(ctx), AgUi.handle(ctx), UiStream.handle(ctx), A2a.make(ctx)]
  /** True when the request was one of theirs (it is answered). */
  return (req: IncomingMessage, res: ServerResponse, path: string): boolean =>
    routes.some((route) => route(req, res, path))
}
