import { type DocumentNode, GraphQLError } from "graphql"
import { useServer } from "graphql-ws/use/ws"
import type { IncomingMessage } from "node:http"
import type { WebSocketServer } from "ws"

/**
 * graphql-ws on a WebSocketServer, executing through yoga's envelop: the same schema, plugins and limits as over HTTP.
 * `authenticate` admits a connection (undefined refuses it) and says who it is; `context` is each operation's.
 */
/**
 * A document parsed, or the refusal as this subscription's error: a syntax error (GRAPHQL_PARSE_FAILED) or a
 * limit the parser enforces (QUERY_TOO_LONG). Thrown out of onSubscribe, graphql-ws would close the whole socket.
 */
const parsed = (parse: (query: string) => DocumentNode, query: string): DocumentNode | Array<GraphQLError> => {
  try {
    return parse(query)
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e
    if (e.extensions.code !== undefined) return [e]
    return [
      new GraphQLError(e.message, {
        nodes: e.nodes,
        source: e.source,
        positions: e.positions,
        extensions: { code: "GRAPHQL_PARSE_FAILED" }
      })
    ]
  }
}

export const graphqlWs = <U extends object>(
  yoga: { readonly getEnveloped: (ctx: any) => any },
  wss: WebSocketServer,
  options: {
    readonly authenticate: (
      connectionParams: Record<string, unknown> | undefined,
      request: IncomingMessage
    ) => U | undefined
    readonly context: (user: U) => object
  }
): { readonly dispose: () => void | Promise<void> } => {
  return useServer<Record<string, unknown> | undefined, { request: IncomingMessage; user?: U }>({
    onConnect: (ctx) => {
      const user = options.authenticate(ctx.connectionParams, ctx.extra.request)
      if (!user) return false
      ctx.extra.user = user
      return true
    },
    onSubscribe: async (ctx, _id, payload) => {
      const { execute, parse, schema, subscribe, validate } = yoga.getEnveloped({
        ...ctx,
        req: ctx.extra.request,
        params: payload
      })
      const document = parsed(parse, payload.query)
      if (Array.isArray(document)) return document // this subscription's error; the socket and its others go on
      const args = {
        schema,
        operationName: payload.operationName,
        document,
        variableValues: payload.variables,
        contextValue: options.context(ctx.extra.user!),
        rootValue: { execute, subscribe }
      }
      const errors = validate(args.schema, args.document)
      return errors.length > 0 ? errors : args
    },
    execute: (args: any) => args.rootValue.execute(args),
    subscribe: (args: any) => args.rootValue.subscribe(args)
  }, wss)
}
