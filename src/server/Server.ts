import { useCSRFPrevention } from "@graphql-yoga/plugin-csrf-prevention"
import type { ManagedRuntime } from "effect"
import { useServer } from "graphql-ws/use/ws"
import { createSchema, createYoga, type Plugin } from "graphql-yoga"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { WebSocketServer } from "ws"
import { readPackageFile } from "../support/PackageFiles.js"
import * as EffectAdapter from "./EffectAdapter.js"
import type { GraphQLContext } from "./GraphQLContext.js"
import * as QueryLimits from "./QueryLimits.js"
import * as Resolvers from "./Resolvers.js"
import { type AuthConfig, authenticate, authRequired, errorCodes } from "./Security.js"

export interface ServerOptions {
  readonly port: number
  readonly host: string
  readonly auth: AuthConfig
  readonly limits: QueryLimits.QueryLimits
  readonly maxBodyBytes: number
  readonly info: Resolvers.ServerInfo
}

export const typeDefs = readPackageFile("schema.graphql")

const exampleQuery = (runId: string) =>
  `# Aeon — start a run, then follow its events live (run them in this order).
# The offline model is a rule-based stand-in unless a provider is configured.

mutation Start {
  runTask(input: { task: "Compute (17 + 25) * 3 and explain the result", mode: FULL, runId: "${runId}" }) {
    id
    status
  }
}

subscription Follow {
  runEvents(runId: "${runId}", fromSeq: 0) {
    seq
    type
    ... on PhaseEnteredEvent { passNumber phase }
    ... on StepFinishedEvent { stepId stepStatus stepOutput }
    ... on ConvergenceAssessedEvent { assessment { converged completenessScore reasonCodes } }
    ... on RunFinishedEvent { status finalAnswer { answerText } }
  }
}

query Inspect {
  run(id: "${runId}") {
    status
    finalAnswer { answerText label }
    history { passes { passNumber phases convergence { converged reasonCodes } } }
    usage { llmCalls inputTokens outputTokens costUsd }
  }
}

# Human in the loop: this run's memory.write waits for your approval (status AWAITING_INPUT).
mutation StartWithApproval {
  runTask(input: {
    task: "Store 42 in memory under answer, then read it back"
    mode: FULL
    runId: "${runId}-approval"
    approvalTools: ["memory.write"]
  }) { id status }
}

query Pending {
  run(id: "${runId}-approval") { status pendingApprovals { requestId stepId tool input description } }
}

# Paste the requestId from Pending (EDIT with input: {...} changes the call; REJECT with a reason refuses it).
mutation Approve {
  respondToApproval(runId: "${runId}-approval", requestId: "PASTE-REQUEST-ID", decision: APPROVE) { id status }
}
`

/** The GraphQL server: yoga over HTTP (SSE for subscriptions) and graphql-ws on the same path. */
export const start = async <R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>, options: ServerOptions) => {
  const adapter = EffectAdapter.make(runtime as ManagedRuntime.ManagedRuntime<any, unknown>)
  const schema = createSchema<GraphQLContext>({ typeDefs, resolvers: Resolvers.make(adapter, options.info) as any })
  const auth: Plugin = {
    onRequest({ request, fetchAPI, endResponse }) {
      const page = request.method === "GET" && (request.headers.get("accept") ?? "").includes("text/html")
      if (page || !authRequired(options.auth)) return
      if (!authenticate(options.auth, request.headers.get("authorization"))) {
        endResponse(
          new fetchAPI.Response(
            JSON.stringify({
              errors: [{ message: "missing or invalid API key", extensions: { code: "UNAUTHENTICATED" } }]
            }),
            {
              status: 401,
              headers: { "content-type": "application/json", "www-authenticate": "Bearer" }
            }
          )
        )
      }
    }
  }
  const yoga = createYoga<{ req?: IncomingMessage }, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    // GraphiQL bundled with the server: it works without internet access (yoga's default loads it from a CDN).
    // Loaded on the first page view: the renderer holds the whole page (about 45 MB of the server's memory)
    renderGraphiQL: (options) => import("@graphql-yoga/render-graphiql").then((m) => m.renderGraphiQL(options)),
    // subscriptions from GraphiQL over graphql-ws: its SSE mode uses GET (EventSource), which CSRF prevention refuses
    graphiql: () => ({
      title: "Aeon",
      subscriptionsProtocol: "WS",
      defaultQuery: exampleQuery(`demo-${Math.random().toString(36).slice(2, 10)}`)
    }),
    plugins: [
      auth,
      ...QueryLimits.plugins(options.limits),
      useCSRFPrevention({ requestHeaders: ["x-graphql-yoga-csrf", "graphql-require-preflight"] }),
      errorCodes
    ],
    // the request's signal only when a resolver asks for it: creating it costs an AbortController per request
    context: ({ request }) => ({
      ...authenticate(options.auth, request.headers.get("authorization")),
      events: { max: options.limits.maxEvents, left: options.limits.maxEvents },
      get signal() {
        return request.signal
      }
    }),
    logging: false
  })

  const tooLarge = (res: ServerResponse) =>
    res.writeHead(413, { "content-type": "application/json", connection: "close" })
      .end(
        JSON.stringify({
          errors: [{
            message: `request body over ${options.maxBodyBytes} bytes`,
            extensions: { code: "PAYLOAD_TOO_LARGE" }
          }]
        })
      )
  const server: Server = createServer((req, res) => {
    if (req.headers["content-length"] !== undefined) {
      if (Number(req.headers["content-length"]) > options.maxBodyBytes) {
        tooLarge(res)
        req.resume()
        return
      }
      return void yoga.handle(req, res)
    }
    if (req.method === "GET" || req.method === "HEAD") return void yoga.handle(req, res)
    // A body of unknown length (chunked): read it with the limit counted, then hand it to yoga as a buffer
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > options.maxBodyBytes) {
        req.removeAllListeners("data")
        req.removeAllListeners("end")
        tooLarge(res)
        req.resume()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => {
      ;(req as IncomingMessage & { body?: Buffer }).body = Buffer.concat(chunks)
      yoga.handle(req, res)
    })
  })

  // a WebSocket message has the same size limit as a request body (ws would accept 100 MiB)
  const wss = new WebSocketServer({ server, path: "/graphql", maxPayload: options.maxBodyBytes })
  const ws = useServer<Record<string, unknown> | undefined, { request: IncomingMessage; user?: { userId?: string } }>({
    onConnect: (ctx) => {
      const header = (ctx.connectionParams?.authorization as string | undefined) ??
        ctx.extra.request.headers.authorization
      const user = authenticate(options.auth, header)
      if (!user) return false
      ctx.extra.user = user
      return true
    },
    onSubscribe: async (ctx, _id, payload) => {
      const { schema, execute, subscribe, parse, validate } = yoga.getEnveloped({
        ...ctx,
        req: ctx.extra.request,
        params: payload
      })
      const args = {
        schema,
        operationName: payload.operationName,
        document: parse(payload.query),
        variableValues: payload.variables,
        contextValue: {
          ...ctx.extra.user,
          events: { max: options.limits.maxEvents, left: options.limits.maxEvents }
        } satisfies GraphQLContext,
        rootValue: { execute, subscribe }
      }
      const errors = validate(args.schema, args.document)
      if (errors.length > 0) return errors
      return args
    },
    execute: (args: any) => args.rootValue.execute(args),
    subscribe: (args: any) => args.rootValue.subscribe(args)
  }, wss)

  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve))
  const address = server.address() as AddressInfo
  const url = `http://${
    address.address.includes(":") ? `[${address.address}]` : address.address
  }:${address.port}/graphql`
  return {
    url,
    server,
    yoga,
    close: async () => {
      await ws.dispose()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
