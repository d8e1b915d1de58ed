import { type ExecutionResult, GraphQLError } from "graphql"
import { type getSSEProcessor, isAsyncIterable, type Plugin } from "graphql-yoga"
import type { Readable } from "node:stream"
import { recordOf } from "../../support/Fields.js"
import { sseBody } from "../Sse.js"

type ResultProcessor = ReturnType<typeof getSSEProcessor>

/** A result as its JSON; errors without their internal extensions (as yoga does). */
const resultJson = (result: ExecutionResult): string => {
  if (result.errors === undefined && result.extensions === undefined) return JSON.stringify(result)
  const { http: _http, ...extensions } = recordOf(result.extensions) ?? {}
  return JSON.stringify({
    ...result,
    errors: result.errors?.map((e) => {
      const { extensions: own, ...error } = e.toJSON()
      const { http: _h, unexpected: _u, ...kept } = own ?? {}
      return Object.keys(kept).length > 0 ? { ...error, extensions: kept } : error
    }),
    extensions: Object.keys(extensions).length > 0 ? extensions : undefined
  })
}

/** Each result as an SSE frame (`event: next`), the iterator's `return` passed on at once (the feed closes). */
const framesOf = (results: AsyncIterator<ExecutionResult>): AsyncIterator<string> => ({
  next: () =>
    results.next().then((r): IteratorResult<string> =>
      r.done
        ? { done: true, value: undefined }
        : { done: false, value: `event: next\ndata: ${resultJson(r.value)}\n\n` }
    ),
  return: () =>
    results.return?.().then(() => ({ done: true, value: undefined })) ??
      Promise.resolve({ done: true, value: undefined })
})

/**
 * A subscription's results as an SSE body (graphql-sse's distinct connections mode, the format yoga writes:
 * `event: next` per result, then `event: complete`) through the edge's one SSE writer. A failure of the feed
 * (SUBSCRIBER_TOO_SLOW) is sent as a result with its coded error, then the stream completes.
 */
export const resultsBody = (results: AsyncIterator<ExecutionResult>): Readable =>
  sseBody(framesOf(results), {
    keepAlive: true,
    end: "event: complete\ndata:\n\n",
    onFailure: (e) => `event: next\ndata: ${resultJson({ errors: [asGraphQLError(e)] })}\n\n`
  })

/** An error of the feed as the client may see it: a coded GraphQLError as it is, anything else masked. */
const asGraphQLError = (e: unknown): GraphQLError =>
  e instanceof GraphQLError
    ? e
    : new GraphQLError("Unexpected error.", { extensions: { code: "INTERNAL_SERVER_ERROR" } })

/** The SSE bodies of the responses `sseResponse` made, each by its Response (gone with it). */
const nodeBodies = new WeakMap<object, Readable>()

/**
 * A subscription's SSE body as the Node stream it is, for the edge to write as it is (server/WebRoute): not through
 * the web stream yoga's Response wraps around it, a promise per frame more.
 */
export const nodeBodyOf = (response: Response): Readable | undefined => nodeBodies.get(response)

/** `sseBody` as yoga's result processor. */
export const sseResponse: ResultProcessor = (result, fetchAPI) => {
  const body = resultsBody((result as AsyncIterable<ExecutionResult>)[Symbol.asyncIterator]())
  // yoga's Response (@whatwg-node/fetch on Node) takes a Node stream as its body; the DOM's BodyInit type does not say so
  const response = new fetchAPI.Response(body as unknown as BodyInit, {
    status: 200,
    headers: {
      "content-type": "text/event-stream",
      connection: "keep-alive",
      "cache-control": "no-cache",
      "content-encoding": "none"
    }
  })
  nodeBodies.set(response, body)
  return response
}

/**
 * Subscriptions asked over SSE are answered by `sseResponse` (yoga's own processor answers everything else): yoga's
 * errors the stream when a feed fails, where a subscriber too slow must be told where to resume from.
 */
export const sseResults: Plugin = {
  onResultProcess({ request, result, setResultProcessor }) {
    if (isAsyncIterable(result) && (request.headers.get("accept") ?? "").includes("text/event-stream")) {
      setResultProcessor(sseResponse, "text/event-stream")
    }
  }
}
